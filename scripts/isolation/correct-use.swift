// Must compile: registering from nonisolated code, resolving on the main actor.
import Graft

@MainActor final class ProfileViewModel {}

func assemble(_ container: Container) {
    container.registerMain(ProfileViewModel.self) { _ in ProfileViewModel() }.inObjectScope(.container)
}

@MainActor func show(_ container: Container) -> ProfileViewModel? {
    container.resolveMain(ProfileViewModel.self)
}

@MainActor final class ProfileScreen {
    @MainInjected var model: ProfileViewModel
}

func fromAsyncCode(_ resolver: SynchronizedResolver) async -> Bool {
    await MainActor.run { resolver.resolveMain(ProfileViewModel.self) != nil }
}
