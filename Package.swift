// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Graft",
    products: [
        .library(name: "Graft", targets: ["Graft"]),
        .library(name: "GraftTesting", targets: ["GraftTesting"]),
        .executable(name: "graft-demo", targets: ["graft-demo"]),
    ],
    targets: [
        .target(name: "Graft"),
        // Swift Testing traits that run a test inside `withResolver` or `withOverrides`.
        .target(name: "GraftTesting", dependencies: ["Graft"]),
        .executableTarget(name: "graft-demo", dependencies: ["Graft"]),
        .executableTarget(name: "graft-stress", dependencies: ["Graft"]),
        // Drops every shape of container, for LeakSanitizer (scripts/lsan.sh).
        .executableTarget(name: "graft-leaks", dependencies: ["Graft"]),
        .testTarget(name: "GraftTests", dependencies: ["Graft", "GraftTesting"], exclude: ["ModelBased/README.md"]),
        .testTarget(name: "GraftTestingTests", dependencies: ["Graft", "GraftTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
