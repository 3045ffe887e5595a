//! `count-floor DIR WORD [THREADS] [ROUNDS] < FILES`: the floor of an exact
//! line count. Reads the files named on standard input (one path relative to
//! DIR a line) into memory, then counts the lines that hold WORD in all of
//! them, on THREADS threads, ROUNDS times, and prints
//! `<best ms> <lines> <files> <bytes>`. Each round is one `memchr::memmem`
//! pass over every byte and a jump to the next line after each match: no
//! file read, no binary check, no line numbers, no result kept. An index that
//! answers with the exact total of a common word cannot do less.

use std::io::BufRead;
use std::time::Instant;

fn lines_holding(finder: &memchr::memmem::Finder, bytes: &[u8]) -> u64 {
    let (mut lines, mut at) = (0, 0);
    while let Some(found) = finder.find(&bytes[at..]) {
        lines += 1;
        let start = at + found;
        at = match memchr::memchr(b'\n', &bytes[start..]) {
            Some(end) => start + end + 1,
            None => bytes.len(),
        };
    }
    lines
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(word)) = (args.next(), args.next()) else {
        eprintln!("usage: count-floor DIR WORD [THREADS] [ROUNDS] < FILES");
        std::process::exit(2);
    };
    let threads: usize = args.next().map_or(2, |t| t.parse().expect("THREADS: a number"));
    let rounds: usize = args.next().map_or(15, |r| r.parse().expect("ROUNDS: a number"));
    let files: Vec<Vec<u8>> = std::io::stdin()
        .lock()
        .lines()
        .map(|line| line.expect("a file name on standard input"))
        .filter(|line| !line.is_empty())
        .map(|name| std::fs::read(std::path::Path::new(&dir).join(&name)).unwrap_or_default())
        .collect();
    let bytes: usize = files.iter().map(Vec::len).sum();
    let finder = memchr::memmem::Finder::new(word.as_bytes());
    let part = files.len().div_ceil(threads.max(1)).max(1);
    let (mut best, mut lines) = (f64::MAX, 0);
    for _ in 0..rounds {
        let started = Instant::now();
        lines = std::thread::scope(|scope| {
            let counting: Vec<_> = files
                .chunks(part)
                .map(|some| {
                    let finder = &finder;
                    scope.spawn(move || some.iter().map(|f| lines_holding(finder, f)).sum::<u64>())
                })
                .collect();
            counting.into_iter().map(|c| c.join().expect("a counting thread")).sum()
        });
        best = best.min(started.elapsed().as_secs_f64() * 1e3);
    }
    println!("{best:.2} {lines} {} {bytes}", files.len());
}
