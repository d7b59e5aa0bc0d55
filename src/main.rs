//! The `warpcert` command line; see `warpcert --help` and `src/cli/`.
//!
//! The global allocator is [`warpcert::cli::guard::Guarded`]: when memory runs out (the
//! system refuses it, `ulimit -v`, or `--max-memory`) warpcert reports a resource failure
//! and exits with code 1 instead of aborting.

#[global_allocator]
static ALLOC: warpcert::cli::guard::Guarded = warpcert::cli::guard::Guarded;

fn main() {
    let code = warpcert::cli::main();
    warpcert::frontend::clang::run::remove_support_dir();
    std::process::exit(code);
}
