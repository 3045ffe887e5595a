//! A fuzzing fallback for stable Rust: runs the same target functions as the
//! libFuzzer targets over mutated inputs for a fixed time or number of runs.
//!
//! No coverage instrumentation: inputs are mutated from the corpus (bit
//! flips, byte edits, splices, dictionary tokens), and an input is kept when
//! the target reports an outcome it had not seen (a coarse novelty signal).
//! A panic is a finding: it is saved under `artifacts/<target>/` and printed.
//!
//!   cargo run --release --no-default-features --bin stable -- pattern --seconds 300
//!   options: --seconds N  --runs N  --seed N  --max-len N  --save (add new inputs to corpus/<target>/)

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Target = fn(&[u8]) -> String;

fn target(name: &str) -> Option<Target> {
    Some(match name {
        "pattern" => agent_find_fuzz::pattern,
        "parsers" => agent_find_fuzz::parsers,
        "options" => agent_find_fuzz::options,
        _ => return None,
    })
}

#[rustfmt::skip]
const DICT: &[&[u8]] = &[
    b"**", b"**/", b"/**", b"*", b"?", b"[", b"]", b"[!", b"[^", b"{", b"}", b",", b"/", b"./", b"\\", b"-", b".",
    b"a-z", b"\0", b"\xff", b"\xc3\xa9", b"\xf0\x9f\x98\x80", b"KB", b"MB", b"GiB", b"TB", b"b", b"e", b"E", b"1.5",
    b"00", b"9999999999999999999999", b"d", b"h", b"m", b"s", b"w", b"days", b"2024-01-01", b"T12:00:00", b"Z",
    b"+02:00", b"-", b" ", b"(", b")", b"|", b"^", b"$", b"\\d", b"{2,}", b"(?i)", b".*",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn mutate(rng: &mut Rng, corpus: &[Vec<u8>], max_len: usize) -> Vec<u8> {
    let mut data = corpus[rng.below(corpus.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(9) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] = rng.next() as u8;
            }
            2 => data.insert(at, rng.next() as u8),
            3 if !data.is_empty() => {
                let end = (at + 1 + rng.below(8)).min(data.len());
                data.drain(at.min(end)..end);
            }
            4 | 5 => {
                let token = DICT[rng.below(DICT.len())];
                data.splice(at..at, token.iter().copied());
            }
            6 if !data.is_empty() => {
                let start = rng.below(data.len());
                let end = (start + 1 + rng.below(16)).min(data.len());
                let piece = data[start..end].to_vec();
                for _ in 0..1 + rng.below(8) {
                    data.splice(at..at, piece.iter().copied());
                }
            }
            7 => {
                let other = &corpus[rng.below(corpus.len())];
                let from = rng.below(other.len() + 1);
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            _ => data.truncate(at),
        }
    }
    data.truncate(max_len);
    data
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf29ce484222325, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map(String::as_str).unwrap_or("");
    let Some(run) = target(name) else {
        eprintln!("usage: stable <pattern|parsers|options> [--seconds N] [--runs N] [--seed N] [--max-len N] [--save]");
        std::process::exit(2);
    };
    let flag =
        |f: &str| args.iter().position(|a| a == f).and_then(|i| args.get(i + 1)).and_then(|v| v.parse::<u64>().ok());
    let seconds = flag("--seconds").unwrap_or(60);
    let runs = flag("--runs").unwrap_or(u64::MAX);
    let max_len = flag("--max-len").unwrap_or(4096) as usize;
    let seed = flag("--seed").unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    }) | 1;
    let save = args.iter().any(|a| a == "--save");

    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `seeds/` is the small corpus kept in git; `corpus/` what local runs grew (not in git).
    let corpus_dir = here.join("corpus").join(name);
    let artifacts = here.join("artifacts").join(name);
    let read_all = |dir: &Path| -> Vec<Vec<u8>> {
        std::fs::read_dir(dir).map(|d| d.filter_map(|e| std::fs::read(e.ok()?.path()).ok()).collect()).unwrap_or_default()
    };
    let mut corpus = read_all(&here.join("seeds").join(name));
    corpus.extend(read_all(&corpus_dir));
    let seeded = corpus.len();
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }

    // A panic's message goes to `last_panic`, not to stderr.
    let last_panic: Arc<Mutex<String>> = Arc::default();
    let sink = Arc::clone(&last_panic);
    std::panic::set_hook(Box::new(move |info| {
        *sink.lock().unwrap() = format!("{info}");
    }));

    let mut rng = Rng(seed);
    let mut outcomes: HashMap<String, u64> = HashMap::new();
    for input in &corpus {
        if let Ok(o) = catch_unwind(AssertUnwindSafe(|| run(input))) {
            *outcomes.entry(o).or_default() += 1;
        }
    }
    let mut crashes: HashSet<String> = HashSet::new();
    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let mut done = 0u64;
    let mut added = 0usize;
    while done < runs && Instant::now() < deadline {
        let input = mutate(&mut rng, &corpus, max_len);
        done += 1;
        match catch_unwind(AssertUnwindSafe(|| run(&input))) {
            Ok(outcome) => {
                let seen = outcomes.entry(outcome).or_default();
                *seen += 1;
                if *seen == 1 {
                    if save {
                        std::fs::create_dir_all(&corpus_dir).unwrap();
                        std::fs::write(corpus_dir.join(format!("stable-{:016x}", fnv(&input))), &input).unwrap();
                    }
                    corpus.push(input);
                    added += 1;
                } else if rng.below(2000) == 0 && corpus.len() < 5000 {
                    corpus.push(input); // some diversity beyond new outcomes
                }
            }
            Err(_) => {
                let message = last_panic.lock().unwrap().clone();
                let key = message.lines().next().unwrap_or("").to_string();
                if crashes.insert(key) {
                    std::fs::create_dir_all(&artifacts).unwrap();
                    let file: PathBuf = artifacts.join(format!("crash-{:016x}", fnv(&input)));
                    std::fs::write(&file, &input).unwrap();
                    println!(
                        "CRASH {} ({} bytes): {}\n  input: {:?}",
                        file.display(),
                        input.len(),
                        message,
                        String::from_utf8_lossy(&input)
                    );
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{name}: {done} runs in {secs:.0} s ({:.0}/s), seed {seed}, corpus {seeded} seeds + {added} new, {} distinct outcomes, {} distinct crashes",
        done as f64 / secs,
        outcomes.len(),
        crashes.len()
    );
    if !crashes.is_empty() {
        std::process::exit(1);
    }
}
