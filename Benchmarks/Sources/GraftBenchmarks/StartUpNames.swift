/// Names of the start-up scenario's services: 100 assemblies of 100 registrations each.
let startUpNames: [[String]] = (0..<100).map { assembly in (0..<100).map { "service-\(assembly)-\($0)" } }

/// The hand-wired floor of the 10-node graph: the same classes and the same sharing as the graph
/// scenario's registrations, built directly. Not inlined, so it costs a call as a resolution does.
@inline(never)
func buildGraphByHand(_ singleton: Singleton) -> Root {
    let n9 = N9()
    let n8 = N8()
    let n7 = N7(n9)
    let n6 = N6(n9)
    let n5 = N5(n8)
    let n4 = N4(n8)
    let root = Root(N1(n4, n5), N2(n4, n6), N3(n5, n6, n7))
    root.n8 = n8
    root.n9 = n9
    root.singleton = singleton
    return root
}
