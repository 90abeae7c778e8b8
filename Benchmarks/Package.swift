// swift-tools-version:6.0
import PackageDescription

// Benchmarks Graft against Swinject 2.10.0 and swift-dependencies 1.17.1 in one process. Kept apart
// from the root package so `swift test` there never builds them. Run:
// swift run -c release --package-path Benchmarks
let package = Package(
    name: "GraftBenchmarks",
    // Graft and Swinject as Differential/Package.swift names them: each package declares its own.
    dependencies: [
        .package(name: "Graft", path: ".."),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
    ],
    targets: [
        .target(name: "MallocCounter"),
        .executableTarget(
            name: "GraftBenchmarks",
            dependencies: [
                "MallocCounter",
                .product(name: "Graft", package: "Graft"),
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "Dependencies", package: "swift-dependencies"),
            ]
        ),
        // The registration scenario alone, in a process without the counting malloc above, and in
        // one with it: what the count costs each library (README.md, "Registration without the
        // allocation counter").
        .target(
            name: "RegistrationScenario",
            dependencies: [
                .product(name: "Graft", package: "Graft"),
                .product(name: "Swinject", package: "Swinject"),
            ]
        ),
        .executableTarget(name: "RegistrationTimes", dependencies: ["RegistrationScenario"]),
        .executableTarget(name: "RegistrationTimesCounted", dependencies: ["MallocCounter", "RegistrationScenario"]),
    ],
    swiftLanguageModes: [.v6]
)
