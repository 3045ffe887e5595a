/work/main/bench/floor/target/release/deps/bench_floor-d59186dd969ae45c.d: src/main.rs

/work/main/bench/floor/target/release/deps/bench_floor-d59186dd969ae45c: src/main.rs

src/main.rs:
