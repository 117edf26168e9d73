// Sign-in with the OAuth 2.0 authorization code flow and PKCE (RFC 7636), against Cognito's managed
// login when deployed and the local OIDC stand-in under `make demo`: the same endpoints either way
// (/oauth2/authorize, /oauth2/token, /oauth2/revoke, /logout).
//
// Where things live: tokens in this module's memory only (never localStorage or sessionStorage); the
// PKCE verifier and the state value in sessionStorage for the one redirect round trip, removed as soon
// as the code is exchanged; a "signed in" marker (no token) in sessionStorage, so a reload signs in
// again silently through the sign-in domain's own session instead of showing the button.

const FLOW_KEY = "multitool.signIn.flow"; // {state, verifier, returnTo} during the redirect
const MARKER_KEY = "multitool.signIn.active";
const REFRESH_EARLY_SECONDS = 60;

function base64url(bytes) {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function randomText(size = 32) {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

async function challengeOf(verifier) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

// The claims of a JWT, read (not verified: the API verifies) to show who is signed in and when it ends.
/**
 * @param {string} jwt
 * @returns {Record<string, any>} its claims; none when it cannot be read
 */
export function claimsOf(jwt) {
  try {
    const part = jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const json = decodeURIComponent(
      Array.from(atob(part), (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join(""),
    );
    return JSON.parse(json);
  } catch {
    return {};
  }
}

/** A sign-in that failed or was refused; its message is shown as it is. */
export class SignInError extends Error {}

/** @typedef {{idToken: string, accessToken: string, refreshToken: string | undefined, expiresAt: number}} Tokens */

/** The signed-in person's tokens, kept in memory, refreshed before they end. */
export class OidcSignIn {
  /**
   * @param {import("./state.js").Config} config
   * @param {{onChange?: (signIn: OidcSignIn) => void}} [options] called when the sign-in starts or ends
   */
  constructor(config, { onChange = () => {} } = {}) {
    this.domain = String(config.signInDomain || "").replace(/\/+$/, "");
    this.clientId = String(config.clientId || "");
    this.scope = config.scope || "openid email profile";
    this.redirectUri = `${window.location.origin}/`;
    this.onChange = onChange;
    /** @type {Tokens | null} */
    this.tokens = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
  }

  get signedIn() {
    return this.tokens !== null;
  }

  // Who is signed in, from the ID token: {sub, name, email}.
  get user() {
    if (!this.tokens) return null;
    const claims = claimsOf(this.tokens.idToken);
    return {
      sub: claims.sub,
      email: claims.email || "",
      name: claims.name || [claims.given_name, claims.family_name].filter(Boolean).join(" ") || claims.email || claims["cognito:username"] || claims.sub,
    };
  }

  // The token the API's JWT authorizer checks: the ID token (its audience is this client, and it
  // carries the email and name the cards and mail need). Refreshed first when it is about to end.
  async token() {
    if (!this.tokens) return null;
    if (Date.now() / 1000 > this.tokens.expiresAt - REFRESH_EARLY_SECONDS) await this.refresh();
    return this.tokens ? this.tokens.idToken : null;
  }

  // Start-up: finish a redirect that brought a code, or sign in silently after a reload.
  // Returns true when signed in; false when the page should offer the sign-in button.
  async start() {
    const params = new URLSearchParams(window.location.search);
    // An error is this sign-in's only when a sign-in is in flight: back from a consent the user declined,
    // the page carries the provider's error=access_denied, which the consent card's code reads.
    if (params.has("code") || (params.has("error") && sessionStorage.getItem(FLOW_KEY))) return this.finish(params);
    if (sessionStorage.getItem(MARKER_KEY)) {
      await this.signIn(); // navigates away; the sign-in domain's session answers without a form
      return false;
    }
    return false;
  }

  async signIn() {
    const verifier = randomText(48);
    const state = randomText(16);
    // The query comes back too: a consent's session_id (or its error) and a linked draft outlive the sign-in.
    const returnTo = window.location.pathname + window.location.search + window.location.hash;
    sessionStorage.setItem(FLOW_KEY, JSON.stringify({ state, verifier, returnTo }));
    const query = new URLSearchParams({
      response_type: "code",
      client_id: this.clientId,
      redirect_uri: this.redirectUri,
      scope: this.scope,
      state,
      code_challenge: await challengeOf(verifier),
      code_challenge_method: "S256",
    });
    window.location.assign(`${this.domain}/oauth2/authorize?${query}`);
  }

  async finish(params) {
    const flow = JSON.parse(sessionStorage.getItem(FLOW_KEY) || "null");
    sessionStorage.removeItem(FLOW_KEY);
    const returnTo = (flow && flow.returnTo) || "/";
    window.history.replaceState(null, "", returnTo); // the code is single use: never leave it in the URL
    if (params.has("error")) {
      sessionStorage.removeItem(MARKER_KEY);
      throw new SignInError(`Sign-in failed: ${params.get("error_description") || params.get("error")}.`);
    }
    if (!flow || flow.state !== params.get("state")) {
      throw new SignInError("Sign-in failed: the answer does not belong to this page's request. Sign in again.");
    }
    await this.grant({
      grant_type: "authorization_code",
      code: params.get("code"),
      redirect_uri: this.redirectUri,
      code_verifier: flow.verifier,
    });
    sessionStorage.setItem(MARKER_KEY, "1");
    return true;
  }

  async refresh() {
    if (!this.tokens || !this.tokens.refreshToken) return this.forget();
    try {
      await this.grant({ grant_type: "refresh_token", refresh_token: this.tokens.refreshToken });
    } catch {
      this.forget(); // the refresh token was revoked or has expired: signed out
    }
  }

  async grant(fields) {
    const response = await fetch(`${this.domain}/oauth2/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: this.clientId, ...fields }),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok || !data.id_token) {
      throw new SignInError(`Sign-in failed: ${data.error_description || data.error || response.status}.`);
    }
    this.tokens = {
      idToken: data.id_token,
      accessToken: data.access_token,
      // A refresh answer carries no new refresh token: keep the one we have.
      refreshToken: data.refresh_token || (this.tokens && this.tokens.refreshToken),
      expiresAt: Math.min(claimsOf(data.id_token).exp || Infinity, Date.now() / 1000 + (data.expires_in || 3600)),
    };
    this.schedule();
    this.onChange(this);
  }

  schedule() {
    clearTimeout(this.timer);
    if (!this.tokens) return;
    const wait = Math.max(1, this.tokens.expiresAt - REFRESH_EARLY_SECONDS - Date.now() / 1000);
    this.timer = setTimeout(() => this.refresh(), wait * 1000);
  }

  forget() {
    clearTimeout(this.timer);
    this.tokens = null;
    sessionStorage.removeItem(MARKER_KEY);
    this.onChange(this);
  }

  // Revoke the refresh token (its access and ID tokens end with it), then end the sign-in domain's session.
  async signOut() {
    const refreshToken = this.tokens && this.tokens.refreshToken;
    if (refreshToken) {
      try {
        await fetch(`${this.domain}/oauth2/revoke`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ token: refreshToken, client_id: this.clientId }),
        });
      } catch {
        // Unreachable: the session below still ends, and the tokens leave this page's memory.
      }
    }
    this.forget();
    const query = new URLSearchParams({ client_id: this.clientId, logout_uri: this.redirectUri });
    window.location.assign(`${this.domain}/logout?${query}`);
  }
}
