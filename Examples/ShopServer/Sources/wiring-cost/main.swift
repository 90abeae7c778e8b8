// Graft — MIT License.
// What a request spends getting its services, through Graft and by hand: see ../../README.md.
import Shop

WiringCost.main(arguments: Array(CommandLine.arguments.dropFirst()))
