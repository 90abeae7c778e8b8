// Must NOT compile: resolveMain is main-actor isolated, and this function is not.
import Graft

final class ProfileViewModel {}

func nonisolatedCaller(_ container: Container) -> ProfileViewModel? {
    container.resolveMain(ProfileViewModel.self)
}
