// Graft — MIT License.
// The shop server: see ../../README.md, or run with --help.
import Shop

await ShopServerCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
