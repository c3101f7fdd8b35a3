import ScreenTimeModel

/// Apple's `ShieldAction` (which shield button the user pressed) and `ShieldActionResponse`
/// (`.close` closes the shielded app, `.defer` redraws the shield, `.none` does nothing): the one
/// definition in ScreenTimeModel, so app code, extension calls and pure machines share the type.
public typealias ShieldAction = ScreenTimeModel.ShieldAction
public typealias ShieldActionResponse = ScreenTimeModel.ShieldActionResponse
