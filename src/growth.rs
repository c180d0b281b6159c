//! Lists that grow by an eighth when full, not by doubling.
//!
//! The audit's largest lists (an object's findings, a device's fix steps, the findings a fix
//! plan withholds) are built one item at a time, as large as the input's ports, and are most
//! of the audit's memory on a config whose every port draws findings. Doubling leaves up to
//! half of such a list empty at the moment it grows: on 1 MiB of EOS ports that draw six
//! findings each, 1.4 MB of empty room for the findings and 2 MB for the plan's steps and
//! withheld findings (issue 19: peak memory within 20 times the input). A large list grows in
//! place (the allocator remaps it), so growing more often costs little.

/// `v.push(x)`, `v` grown by an eighth (at least 8 items) when it is full.
pub fn push_grown<T>(v: &mut Vec<T>, x: T) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 8).max(8));
    }
    v.push(x);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_list_grows_by_an_eighth() {
        let mut v: Vec<u32> = Vec::new();
        for i in 0..8 {
            push_grown(&mut v, i);
        }
        assert_eq!(v.capacity(), 8);
        let mut big: Vec<u32> = Vec::with_capacity(800);
        big.extend(0..800);
        push_grown(&mut big, 800);
        assert_eq!(big.capacity(), 900);
        assert_eq!(big.len(), 801);
        assert_eq!(big[800], 800);
    }
}
