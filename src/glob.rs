//! Shell-style globs (`*` any run of characters, `?` exactly one character, everything else
//! literal), matched without backtracking across stars.
//!
//! Every glob a user or a pull request supplies goes through here: waivers (`waivers.toml`
//! rule/device/object), `--limit`, `[policy] roce_ports`, OpenSSH `Host` patterns and
//! `known_hosts` names, Junos class-of-service interface wildcards.
//!
//! A recursive matcher that tries every split of the name at every `*` is exponential in the
//! number of stars (issue 19: a 90-byte `waivers.toml` with ten stars stalled the audit for
//! 30 s). Here the pattern is cut at its stars into literal segments; the first segment must
//! start the name, the last must end it, and every middle segment is taken at its leftmost
//! occurrence after the previous one. Leftmost is always safe: any match using a later
//! occurrence can use the leftmost instead, since what follows a star can only gain room. Each
//! segment is searched once, so the work is at most |pattern| × |name| character comparisons
//! (linear in the name for a given pattern), never more.

/// Does `pattern` match all of `text`? Characters compare exactly.
pub fn matches(pattern: &str, text: &str) -> bool {
    matches_by(pattern, text, |a, b| a == b)
}

/// Does `pattern` match all of `text`, ASCII letters compared without case (host names)?
pub fn matches_ignore_ascii_case(pattern: &str, text: &str) -> bool {
    matches_by(pattern, text, |a, b| a.eq_ignore_ascii_case(&b))
}

fn matches_by(pattern: &str, text: &str, eq: impl Fn(char, char) -> bool + Copy) -> bool {
    let text: Vec<char> = text.chars().collect();
    let pat: Vec<char> = pattern.chars().collect();
    let segs: Vec<&[char]> = pat.split(|&c| c == '*').collect();
    let (first, rest) = match segs.split_first() {
        Some(s) => s,
        None => return text.is_empty(),
    };
    let Some((last, middle)) = rest.split_last() else {
        // No star: the whole name, character by character.
        return text.len() == first.len() && seg_at(first, &text, 0, eq);
    };
    if text.len() < first.len() + last.len() || !seg_at(first, &text, 0, eq) {
        return false;
    }
    let end = text.len() - last.len();
    if !seg_at(last, &text, end, eq) {
        return false;
    }
    // Middle segments, each at its leftmost place in what the first and last leave.
    let mut at = first.len();
    for seg in middle {
        match find(seg, &text[..end], at, eq) {
            Some(i) => at = i + seg.len(),
            None => return false,
        }
    }
    true
}

/// Does `seg` (literals and `?`) match `text` at `at`?
fn seg_at(seg: &[char], text: &[char], at: usize, eq: impl Fn(char, char) -> bool) -> bool {
    text.len() >= at + seg.len()
        && seg
            .iter()
            .zip(&text[at..])
            .all(|(&p, &t)| p == '?' || eq(p, t))
}

/// The leftmost position at or after `from` where `seg` matches inside `text`.
fn find(
    seg: &[char],
    text: &[char],
    from: usize,
    eq: impl Fn(char, char) -> bool + Copy,
) -> Option<usize> {
    let last_start = text.len().checked_sub(seg.len())?;
    (from..=last_start).find(|&i| seg_at(seg, text, i, eq))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: the plain recursive definition (exponential, fine on short inputs).
    fn slow(p: &[char], t: &[char]) -> bool {
        match (p.first(), t.first()) {
            (None, None) => true,
            (Some('*'), _) => slow(&p[1..], t) || (!t.is_empty() && slow(p, &t[1..])),
            (Some('?'), Some(_)) => slow(&p[1..], &t[1..]),
            (Some(a), Some(b)) if a == b => slow(&p[1..], &t[1..]),
            _ => false,
        }
    }

    #[test]
    fn examples() {
        assert!(matches("leaf*", "leaf12"));
        assert!(!matches("leaf?", "leaf12"));
        assert!(matches("leaf??", "leaf12"));
        assert!(matches("*", ""));
        assert!(matches("", ""));
        assert!(!matches("", "a"));
        assert!(matches("Ethernet1/1*", "Ethernet1/12"));
        assert!(matches("et-*", "et-0/0/1"));
        assert!(!matches("et-*", "xe-0/0/1"));
        assert!(matches("a*b*c", "abc"));
        assert!(matches("a*b*c", "aXbYbZc"));
        assert!(!matches("a*b*c", "aXbYbZ"));
        assert!(matches("*ab", "aab"));
        assert!(!matches("ab*ba", "aba"), "first and last may not overlap");
        assert!(matches("ä?*", "äöü"), "? is one character, not one byte");
        assert!(matches_ignore_ascii_case("LEAF*", "leaf1"));
        assert!(!matches("LEAF*", "leaf1"));
    }

    /// Every pattern over {a, b, *, ?} up to 5 long against every name over {a, b} up to 6
    /// long agrees with the recursive definition.
    #[test]
    fn agrees_with_the_definition() {
        fn all(alpha: &[char], max: usize) -> Vec<String> {
            let mut out = vec![String::new()];
            let mut frontier = vec![String::new()];
            for _ in 0..max {
                let mut next = Vec::new();
                for s in &frontier {
                    for &c in alpha {
                        next.push(format!("{s}{c}"));
                    }
                }
                out.extend(next.iter().cloned());
                frontier = next;
            }
            out
        }
        let pats = all(&['a', 'b', '*', '?'], 5);
        let names = all(&['a', 'b'], 6);
        for p in &pats {
            let pc: Vec<char> = p.chars().collect();
            for n in &names {
                let nc: Vec<char> = n.chars().collect();
                assert_eq!(matches(p, n), slow(&pc, &nc), "{p:?} against {n:?}");
            }
        }
    }

    /// The shape: many stars, a long name that almost matches. The recursive matcher
    /// takes minutes on this; here it is a few thousand comparisons.
    #[test]
    fn many_stars_are_cheap() {
        let pat = format!("{}b", "a*".repeat(40));
        let name = "a".repeat(10_000);
        let t = std::time::Instant::now();
        assert!(!matches(&pat, &name));
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
    }
}
