// Graft — MIT License.
// shop-load: drives a shop server closed-loop with a mix of writes and reads, classifies every
// answer against the server's contract, and records each write's outcome (see Options.usage and
// Examples/ShopServer/README.md). Prints one RESULT line; unexpected answers go to standard error.
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes `text` and a newline to standard error.
func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in
        var rest = UnsafeRawBufferPointer(bytes)
        while !rest.isEmpty {
            let written = write(STDERR_FILENO, rest.baseAddress, rest.count)
            guard written > 0 else { return }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
    }
}

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message { printError("shop-load: \(message)") }
    printError(Options.usage)
    exit(error.message == nil ? 0 : 2)
}

// Two threads: the client should cost the machine little next to the server it drives.
let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
let start = NIODeadline.now()
let deadline = start + .nanoseconds(Int64(options.seconds * 1e9))
let runs = (0..<options.connections).map { index in
    LoadConnection(index: index, eventLoop: group.next(), options: options, deadline: deadline).run()
}
let tallies = try await EventLoopFuture.whenAllSucceed(runs, on: group.next()).get()
let elapsed = NIODeadline.now() - start
try await group.shutdownGracefully()

var total = Tally(sampleLimit: options.samples)
for tally in tallies { total.merge(tally) }
for sample in total.samples { printError("shop-load: \(sample)") }
if let folder = options.recordFolder {
    do {
        try Records.append(total, to: folder)
    } catch {
        printError("shop-load: \(error)")
        exit(1)
    }
}
print(total.resultLine(durationMicroseconds: elapsed.nanoseconds / 1_000))
