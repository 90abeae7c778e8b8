// Graft — MIT License.
//
// Planted bugs that prove a sanitizer works inside `swift test` (scripts/asan.sh, scripts/tsan.sh).
// Each runs only when its environment variable is 1, so a plain `swift test` skips them.
import Foundation
import Testing

/// Deliberately racy: written by two threads without synchronization.
private final class UnguardedCounter: @unchecked Sendable {
    var value = 0
}

@Suite struct SanitizerCanaryTests {
    /// A heap use-after-free: AddressSanitizer must stop the process here.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["GRAFT_PLANT_USE_AFTER_FREE"] == "1"))
    func plantedHeapUseAfterFree() {
        let pointer = UnsafeMutablePointer<Int>.allocate(capacity: 4)
        pointer.initialize(repeating: 7, count: 4)
        pointer.deallocate()
        pointer[2] = 8  // the planted bug
        #expect(Bool(true))
    }

    /// A data race on a plain counter, the same as `graft-stress --planted-race`: ThreadSanitizer
    /// must report it.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["GRAFT_PLANT_RACE"] == "1"))
    func plantedDataRace() {
        let counter = UnguardedCounter()
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                for _ in 0..<1_000 { counter.value += 1 }  // the planted bug
                group.leave()
            }.start()
        }
        group.wait()
        #expect(counter.value > 0)
    }
}
