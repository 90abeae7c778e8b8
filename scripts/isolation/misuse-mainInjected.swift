// Must NOT compile: @MainInjected is main-actor isolated; a nonisolated type cannot hold one.
import Graft

final class ProfileViewModel {}

final class NonisolatedScreen {
    @MainInjected var model: ProfileViewModel
}
