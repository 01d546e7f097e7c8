use std::process::ExitCode;

use clap::{Parser, Subcommand};

use glossary::cmd;

// `--features system-alloc` leaves the system's malloc in place, so heap profilers that
// hook it (heaptrack: bench/memory.sh's breakdown) see every allocation.
#[cfg(not(any(feature = "system-alloc", feature = "heap-count")))]
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
// `--features heap-count`: the same allocator, counting what is live (bench/memory.sh).
#[cfg(all(feature = "heap-count", not(feature = "system-alloc")))]
#[global_allocator]
static ALLOC: glossary::heap_count::Counting = glossary::heap_count::Counting;

/// Build a GPU-programming glossary whose numbers come from measured runs.
#[derive(Parser)]
#[command(name = "glossary", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Render content/ through templates/ into site/, publishing only signed entries.
    Build(cmd::build::BuildArgs),
    /// Check everything a build checks, write nothing; exit 1 on any error.
    Check(cmd::check::CheckArgs),
    /// Compare two records of one experiment row by row: both intervals and a verdict.
    Compare(cmd::compare::CompareArgs),
    /// Create a new entry from a template.
    New(cmd::new::NewArgs),
    /// Occupancy of a launch on an architecture, and how to read it (or read an ncu export).
    Occupancy(cmd::occupancy::OccupancyArgs),
    /// Take records verify wrote elsewhere (scheduler tasks, CI) into measurements/, checked.
    Records(cmd::records::RecordsArgs),
    /// Re-run a published table on this machine's GPU, compare it, and write a signed contribution.
    Reproduce(cmd::reproduce::ReproduceArgs),
    /// Sign entries, see where each stands, and diff what changed since a signature.
    Review(cmd::review::ReviewArgs),
    /// Serve the site on localhost, rebuilding and reloading open pages on every save.
    Serve(cmd::serve::ServeArgs),
    /// Run the cited kernels on the verification node and record what they measured.
    Verify(cmd::verify::VerifyArgs),
}

fn main() -> ExitCode {
    #[cfg(not(feature = "system-alloc"))]
    glossary::heap_count::purge_freed_memory_at_once();
    #[cfg(feature = "heap-count")]
    glossary::heap_count::start_log();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Build(a) => cmd::build::run(a),
        Command::Check(a) => cmd::check::run(a),
        Command::Compare(a) => cmd::compare::run(a),
        Command::New(a) => cmd::new::run(a),
        Command::Occupancy(a) => cmd::occupancy::run(a),
        Command::Records(a) => cmd::records::run(a),
        Command::Reproduce(a) => cmd::reproduce::run(a),
        Command::Review(a) => cmd::review::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Verify(a) => cmd::verify::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout went away (`glossary review status | head`): it has what
        // it wanted, which is not a failure of the command.
        Err(e) if cmd::is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Through the one escaping wrapper: an error may quote a file, and `anyhow`'s
            // context lines are not `glossary::Error`s.
            eprintln!("error: {:#}", glossary::visible::Escaped(&e));
            ExitCode::FAILURE
        }
    }
}
