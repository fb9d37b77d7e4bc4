// Why a sign-in failed, worded once: `logged` for the owner's sign-in history, `shown` for
// the person at the sign-in page or the console. (No imports: the pages' scripts use it too.)

export type SignInFailure = "password" | "passkey" | "password-off" | "empty";

export const SIGN_IN_FAILURES: Readonly<Record<SignInFailure, { logged: string; shown: string }>> = {
  password: { logged: "wrong password", shown: "That password is not right. Please try again." },
  passkey: {
    logged: "passkey not accepted",
    shown: "That passkey was not accepted. Try again, or use another way to sign in.",
  },
  "password-off": {
    logged: "password sign-in is off",
    shown: "Password sign-in is off (PASSWORD_LOGIN=off): sign in with a passkey.",
  },
  empty: { logged: "no password given", shown: "Enter your password." },
};
