fn main() {
    std::process::exit(fabric_audit::run() as i32);
}
