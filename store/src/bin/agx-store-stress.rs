//! A test helper of the summary store (not installed with agx): writes records as fast as
//! it can, so the tests can run two writers at once or kill one mid-write.
//!
//! `agx-store-stress LOCATION PREFIX COUNT SUMMARIES`: writes records of programs
//! `PREFIX0 .. PREFIX{COUNT-1}` and, after each, the record of program `shared`, each with
//! SUMMARIES summaries; COUNT 0 writes forever.

use store::{Location, Meta, Record, Store, StoredSummary};

fn record(program: &str, summaries: usize, salt: usize) -> Record {
    Record {
        meta: Meta::current(env!("CARGO_PKG_VERSION"), program),
        summaries: (0..summaries)
            .map(|i| StoredSummary {
                node: vec![i as u64, salt as u64],
                formula: format!("(and (bvslt (input 0 {i} 32) #x{salt:08x}) true)"),
            })
            .collect(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [location, prefix, count, summaries] = args.as_slice() else {
        eprintln!("usage: agx-store-stress LOCATION PREFIX COUNT SUMMARIES");
        std::process::exit(2);
    };
    let (count, summaries): (usize, usize) = match (count.parse(), summaries.parse()) {
        (Ok(c), Ok(s)) => (c, s),
        _ => {
            eprintln!("agx-store-stress: COUNT and SUMMARIES are numbers");
            std::process::exit(2);
        }
    };
    let run = || -> Result<(), store::StoreError> {
        let mut s = Store::open(&Location::parse(location)?)?;
        let mut i = 0;
        while count == 0 || i < count {
            s.write(&record(&format!("{prefix}{i}"), summaries, i))?;
            s.write(&record("shared", summaries, i))?;
            i += 1;
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("agx-store-stress: {e}");
        std::process::exit(1);
    }
}
