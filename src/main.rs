//! The `warpcert` command line; see `warpcert --help` and `src/cli/`.

fn main() {
    std::process::exit(warpcert::cli::main());
}
