/work/main/bench/floor/target/release/bench-floor: /work/main/bench/floor/src/main.rs
