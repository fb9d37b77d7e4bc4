// Where the static pages live. Everything of ours sits under one prefix, so that added to an
// existing blog it can never overwrite the blog's own pages or assets.
export const PAGES_PREFIX = "/indieauth";
export const HOME_PAGE = `${PAGES_PREFIX}/`;
export const SIGN_IN_PAGE = `${PAGES_PREFIX}/sign-in/`;
/** The approve step (the sign-in page's form), and its check of a request before the password is asked. */
export const APPROVE_PATH = "/auth/approve";
export const REQUEST_CHECK_PATH = `${APPROVE_PATH}/check`;
export const SELF_TEST_PAGE = `${PAGES_PREFIX}/self-test/`;
export const ASSETS = `${PAGES_PREFIX}/assets`;
export const ACCOUNT_PAGE = `${PAGES_PREFIX}/account/`;

/** The owner console's JSON API (functions `account` and `passkeys`). */
export const ACCOUNT_API = `${PAGES_PREFIX}/api/account`;
export const PASSKEYS_API = `${PAGES_PREFIX}/api/passkeys`;

/** An app's logo, fetched and served by this server (GET /auth/logo?src=…&sig=…), so that the
 * sign-in page never loads anything from the app's host. */
export const CLIENT_LOGO_PATH = "/auth/logo";
