fn main() {
    println!("forkhost {}", env!("CARGO_PKG_VERSION"));
}
