import Foundation

#if os(Linux)
    /// Resident memory of this process in bytes, from /proc. Tests that compare it run in a process
    /// of their own (an exit test): the tests running in parallel move it by tens of megabytes.
    func residentBytes() -> Int {
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
#endif
