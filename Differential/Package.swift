// swift-tools-version:6.0
import PackageDescription

// Differential testing: the model-based programs of Tests/GraftTests/ModelBased run on Graft and on
// Swinject 2.10.0, step by step. SwiftPM refuses target paths outside the package root, so the shared
// sources are symlinks to their one copy in Tests/GraftTests/ModelBased (see its README.md):
//   ModelCore      Program.swift, ReferenceModel.swift
//   GraftRunner    GraftInterpreter.swift (import Graft)
//   SwinjectRunner the same GraftInterpreter.swift compiled with -D INTERPRET_SWINJECT (import Swinject)
// Run: scripts/differential.sh N
let package = Package(
    name: "GraftDifferential",
    // Graft and Swinject as Benchmarks/Package.swift names them: each package declares its own.
    dependencies: [
        .package(name: "Graft", path: ".."),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    ],
    targets: [
        .target(name: "ModelCore"),
        .target(
            name: "GraftRunner",
            dependencies: ["ModelCore", .product(name: "Graft", package: "Graft")],
            swiftSettings: [.define("MODEL_CORE_MODULE")]
        ),
        .target(
            name: "SwinjectRunner",
            dependencies: ["ModelCore", .product(name: "Swinject", package: "Swinject")],
            swiftSettings: [.define("MODEL_CORE_MODULE"), .define("INTERPRET_SWINJECT")]
        ),
        .executableTarget(name: "differential", dependencies: ["ModelCore", "GraftRunner", "SwinjectRunner"]),
    ],
    swiftLanguageModes: [.v6]
)
