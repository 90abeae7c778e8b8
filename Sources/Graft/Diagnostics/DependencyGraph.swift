// Graft — MIT License.

/// The services of a container hierarchy and which resolved which, as ``Container/validate()``
/// observed them: each edge is a resolution a factory (or `initCompleted` action) made through the
/// resolver it received.
///
/// ```swift
/// let graph = container.validate().graph
/// print(graph)                                  // an indented tree
/// try graph.dot.write(toFile: "graph.dot", ...)  // then: dot -Tsvg graph.dot -o graph.svg
/// ```
public struct DependencyGraph: Sendable, CustomStringConvertible {
    /// A registration.
    public struct Node: Sendable, Hashable {
        /// The node's index in ``DependencyGraph/nodes``.
        public var id: Int
        /// The registered type, as `String(describing:)` prints it.
        public var serviceType: String
        /// The registration name, or `nil`.
        public var name: String?
        /// The object scope's description (`graph`, `container`, ...).
        public var objectScope: String
        /// The factory's argument types, as `String(describing:)` prints them.
        public var argumentTypes: [String]
        /// Which container holds the registration: 0 for the validated container, 1 for its
        /// parent, and so on; -1 for a container of the hierarchy that is neither of those (a
        /// child or a sibling that a factory resolved through).
        public var containerLevel: Int

        /// `Type` or `Type (name: "x")`, as in a ``ResolutionError/path``.
        public var label: String { name.map { "\(serviceType) (name: \"\($0)\")" } ?? serviceType }

        /// "this container", "its parent", "ancestor 2", ..., or "another container of the hierarchy".
        public var containerDescription: String { containerName(containerLevel) }
    }

    /// A resolution observed: `from`'s factory asked for `requested`.
    public struct Edge: Sendable, Hashable {
        /// The node whose factory resolved.
        public var from: Int
        /// The node that answered, or `nil` when nothing is registered for what was asked.
        public var to: Int?
        /// What was asked for, labelled as in a path.
        public var requested: String
        /// Whether the edge is part of a circular dependency validation found.
        public var isInCycle: Bool
        /// The warning this edge causes, if any.
        public var warning: ValidationWarning.Kind?
    }

    /// Every registration validated or reached, sorted by label.
    public var nodes: [Node]
    /// Every resolution observed, once each.
    public var edges: [Edge]

    /// The graph in Graphviz DOT: `dot -Tsvg graph.dot -o graph.svg` draws it. Missing
    /// registrations are dashed red boxes, cycles red edges, warnings orange edges.
    public var dot: String {
        var lines = [
            "digraph Graft {",
            "    rankdir=LR;",
            "    node [shape=box, style=rounded, fontname=\"Helvetica\"];",
            "    edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        for node in nodes {
            var text = node.label
            if !node.argumentTypes.isEmpty { text += "\narguments: " + node.argumentTypes.joined(separator: ", ") }
            text += "\nscope: \(node.objectScope)\n\(node.containerDescription)"
            lines.append("    n\(node.id) [label=\"\(Self.escaped(text))\"];")
        }
        var missing: [String: Int] = [:]
        for edge in edges {
            if edge.to == nil, missing[edge.requested] == nil {
                lines.append(
                    "    m\(missing.count) [label=\"\(Self.escaped(edge.requested))\\nnot registered\", "
                        + "style=\"rounded,dashed\", color=red, fontcolor=red];")
                missing[edge.requested] = missing.count
            }
            let target = edge.to.map { "n\($0)" } ?? "m\(missing[edge.requested]!)"
            let attributes =
                edge.isInCycle
                ? " [color=red, label=\"cycle\"]"
                : edge.warning.map { " [color=orange, label=\"\($0)\"]" }
                    ?? (edge.to == nil ? " [color=red, style=dashed]" : "")
            lines.append("    n\(edge.from) -> \(target)\(attributes);")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// An indented tree: each service the application can ask for first (nothing depends on it),
    /// then what it resolves; a service already shown is marked `(see above)`.
    public var description: String {
        let incoming = Set(edges.compactMap { $0.to == $0.from ? nil : $0.to })
        var roots = nodes.filter { !incoming.contains($0.id) }.map(\.id)
        if roots.isEmpty { roots = nodes.map(\.id) }
        var shown = Set<Int>()
        var lines: [String] = []
        func show(_ id: Int, depth: Int, marks: [String] = []) {
            let node = nodes[id]
            let indent = String(repeating: "  ", count: depth)
            var summary = "\(indent)\(node.label) [\(node.objectScope), \(node.containerDescription)]"
            if !marks.isEmpty { summary += " (\(marks.joined(separator: ", ")))" }
            guard shown.insert(id).inserted else {
                lines.append(summary + (marks.contains("cycle") ? "" : " (see above)"))
                return
            }
            lines.append(summary)
            for edge in edges where edge.from == id {
                let marks = [edge.isInCycle ? "cycle" : nil, edge.warning.map { "\($0)" }].compactMap { $0 }
                if let to = edge.to {
                    show(to, depth: depth + 1, marks: marks)
                } else {
                    lines.append("\(indent)  \(edge.requested) (not registered)")
                }
            }
        }
        for root in roots { show(root, depth: 0) }
        for node in nodes where !shown.contains(node.id) { show(node.id, depth: 0) }  // on cycles only
        return lines.joined(separator: "\n")
    }

    /// What DOT writes with a backslash inside a quoted string.
    private static let escapes: [Character: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n"]

    private static func escaped(_ text: String) -> String {
        text.reduce(into: "") { $0 += escapes[$1] ?? String($1) }
    }
}

/// The container `level` steps up from the validated one: "this container", "its parent", "ancestor 2", ...;
/// a negative level is a container of the hierarchy outside the validated one's ancestors.
func containerName(_ level: Int) -> String {
    switch level {
    case 0: "this container"
    case 1: "its parent"
    case 2...: "ancestor \(level)"
    default: "another container of the hierarchy"
    }
}
