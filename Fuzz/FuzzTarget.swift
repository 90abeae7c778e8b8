// libFuzzer entry point: bytes -> program (ProgramGenerator.decode) -> run on Graft and on the
// reference model. A crash or a difference from the model is a finding (a difference stops the
// process after printing the shrunk program, so libFuzzer saves the input).
// Built by scripts/fuzz.sh, outside `swift test`, together with the program, model and interpreter
// of Tests/GraftTests/ModelBased (their one copy; see the README there).

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Graft's log messages are built for every failed resolution, then dropped.
private let loggingDiscarded: Void = ContainerInterpreter.discardLogMessages()

@_cdecl("LLVMFuzzerTestOneInput")
public func graftFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = loggingDiscarded
    // libFuzzer calls on the main thread, where the main actor runs: programs may register
    // main-actor services and resolve them with the plain `resolve`.
    let program = ProgramGenerator.decode(Array(UnsafeBufferPointer(start: data, count: size)), features: .all)
    let modelled = ReferenceModel.run(program)
    let actual = ContainerInterpreter.run(modelled.program).trace
    guard let index = firstDifference(modelled.trace, actual) else { return 0 }
    let shrunk = ProgramShrinker.shrink(modelled.program, budget: 500) { candidate in
        let model = ReferenceModel.run(candidate)
        return firstDifference(model.trace, ContainerInterpreter.run(model.program).trace) != nil
    }
    let model = ReferenceModel.run(shrunk)
    let trace = ContainerInterpreter.run(model.program).trace
    let report =
        firstDifference(model.trace, trace).map {
            describeDifference(program: model.program, expected: model.trace, actual: trace, at: $0)
        } ?? describeDifference(program: modelled.program, expected: modelled.trace, actual: actual, at: index)
    print("Graft differs from the reference model (shrunk):\n\(report)")
    abort()
}
