// Graft — MIT License.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The record files of a run, appended to so that the runs against one database accumulate:
/// orders.txt and accounts.txt (the writes answered 201) and unanswered.txt (the writes sent and
/// never answered). load/check.py compares them with the database.
enum Records {
    /// Appends `tally`'s records to the files in `folder`, made if missing.
    static func append(_ tally: Tally, to folder: String) throws(RecordError) {
        if mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw RecordError(message: "cannot make \(folder): \(String(cString: strerror(errno)))")
        }
        try append(tally.orderRecords, to: "\(folder)/orders.txt")
        try append(tally.accountRecords, to: "\(folder)/accounts.txt")
        try append(tally.unansweredRecords, to: "\(folder)/unanswered.txt")
    }

    private static func append(_ lines: [String], to path: String) throws(RecordError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else {
            throw RecordError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var text = lines.joined(separator: "\n")
        if !lines.isEmpty { text += "\n" }
        var failure: String?
        text.withUTF8 { bytes in
            var rest = UnsafeRawBufferPointer(bytes)
            while !rest.isEmpty {
                let written = write(descriptor, rest.baseAddress, rest.count)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    failure = String(cString: strerror(errno))
                    return
                }
                rest = UnsafeRawBufferPointer(rebasing: rest[written...])
            }
        }
        if let failure { throw RecordError(message: "cannot write \(path): \(failure)") }
    }
}

/// A record file that could not be written.
struct RecordError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
