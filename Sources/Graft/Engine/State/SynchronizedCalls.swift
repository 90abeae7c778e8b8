// Graft — MIT License.

/// What a hierarchy's mutex guards for the synchronized calls that hold it: how many hold it on
/// this thread, the log messages held until the outermost releases it, and (debug builds) the
/// calls on a view that took it first.
///
/// ``SharedState`` stores it in one field beside the mutex, unchecked in release builds: every
/// field is touched only by the thread holding the mutex (or on a plain container's one thread),
/// and no access to them stays open across a call into user code (the held messages are
/// delivered after the mutex is released). The mutex itself stays a `let` of the hierarchy: read
/// through a `var`, every synchronized call would retain and release it.
struct SynchronizedCalls {
    /// Synchronized calls now holding the mutex on this thread (it is recursive).
    var lockedCalls = 0
    /// Log messages held back until the hierarchy is idle (``SharedState/holdsMessages``).
    var heldMessages: [HeldLogMessage] = []
    /// The thread whose change to the hierarchy (``SharedState/withChange(_:call:batch:_:)``) is in progress, or
    /// 0: read, like ``ResolutionState/requestThread``, by a plain container's resolution that
    /// finds the hierarchy in a state only another thread explains, to stop with what to do.
    var changingThread: UInt = 0
    #if DEBUG
        /// Calls on a view of this hierarchy that took the mutex first on their thread (see
        /// ``Container/enterViewLock()``): tests check that every public member of a view takes it
        /// once, for the whole call.
        var viewCallsTaken = 0
    #endif
}
