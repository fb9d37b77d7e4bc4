// The frame every endpoint runs in: each route declares its contract (route(): who may call it,
// the body it accepts, where its answers may send the browser), and the frame alone enforces it
// and answers everything else (docs/architecture.md, "Flows"); the handlers only do their own work.
import { AccessDenied, AnsweredError, MethodNotAllowed, NotFound, SetupIncomplete } from "../errors.ts";
import type { Fields } from "../core/fields.ts";
import { describeProblems, type Config } from "../platform/config.ts";
import type { Capability, Runtime } from "../platform/runtime.ts";
export type { Capability } from "../platform/runtime.ts";
import type { ClientReply } from "../protocol/authorization-response.ts";
import { withCookies } from "./responses.ts";
import { errorResponse, type Answers } from "./error-response.ts";
import { readBody, type BodyRule } from "./body.ts";
import { preflight, readableByAnyOrigin } from "./cors.ts";
import { checkOrigin, strayRedirect, type Owner, type Redirects, type Requester } from "./route-checks.ts";
import type { Emit, Subject, Subscribers } from "../platform/events.ts";

/** `P`: the form fields the route declared, the only ones `form()` lets the handler read.
 * `C`: the capabilities the handler needs of its function (platform/runtime.ts), and so its endpoint. */
export interface RequestContext<P extends string = never, C extends Capability = never> {
  readonly req: Request;
  readonly url: URL;
  readonly rt: Runtime<C>;
  readonly config: Config;
  readonly requester: Requester;
  /** The body's fields, as the route declared them; read (and checked) before the handler runs. */
  form(): Promise<Fields<P>>;
  /** The body as one JSON object of any members, for a route whose body is `{ json }`. */
  json(): Promise<Record<string, unknown>>;
  /** From here on, refusals that may go to the client go to this verified URI: redirected
   * when it is trusted, else as a link on the page that shows the refusal. */
  replyTo: (target: ClientReply) => void;
  /** Tells the subscribers what happened, when the handler knows it (platform/events.ts). */
  emit: Emit;
  /** What the handler knows so far of the sign-in it answers: a refusal is emitted with it. */
  knows: (subject: Subject | null) => void;
  /** State of this request under `key`, made once by `make` however often it is asked for. */
  once: <T>(key: object, make: () => T) => T;
}

export type Handler<P extends string = never, C extends Capability = never> = (
  ctx: RequestContext<P, C>,
) => Promise<Response>;

/** How a session route's owner is found (endpoints/owner-caller.ts), or refused, after the body
 * is read and before the handler runs; `K`: what it checks. */
export interface OwnerCheck<K extends "session" | "reconfirmed"> {
  checks: K;
  find: (ctx: RequestContext<"password" | "passkey_ticket" | "passkey_response">) => Promise<Owner>;
}

type OwnerHandler<P extends string, C extends Capability> = (
  ctx: RequestContext<P, C>,
  owner: Owner,
) => Promise<Response>;

/** The handler as the caller decides: a session route's gets the owner, an open route's none. */
type Callers<P extends string, C extends Capability> =
  | { caller: "anyone"; run: Handler<P, C> }
  | { caller: "same-origin"; crossSite: string; run: Handler<P, C> }
  | { caller: "session"; crossSite: string; owner: OwnerCheck<"session">; run: OwnerHandler<P, C> }
  | { caller: "reconfirmed"; crossSite: string; owner: OwnerCheck<"reconfirmed">; run: OwnerHandler<P, C> };

/** A route's whole contract; `crossSite`: the words a cross-site post is refused with. */
export type RouteSpec<P extends string, C extends Capability = never> = Callers<NoInfer<P>, C> & {
  answers: Answers;
  body: BodyRule<P>;
  redirects: Redirects;
};

declare const declared: unique symbol;
/** A route made by route(), the only way to make one: its contract is checked where it is written. */
export type Route<C extends Capability = never> = RouteSpec<string, C> & { readonly [declared]: true };

/** Declares a route; the field names in `body` type the handler's `ctx.form()`. */
export function route<const P extends string = never, C extends Capability = never>(spec: RouteSpec<P, C>): Route<C> {
  const checked: RouteSpec<string, C> = spec;
  return checked as Route<C>;
}

type Method = "GET" | "POST";
export type Methods<C extends Capability = never> = Partial<Record<Method, Route<C>>>;

interface EndpointSpec<C extends Capability> extends Methods<C> {
  /** Readable from any origin, for browser-based clients. Such endpoints never use cookies. */
  cors?: boolean;
  /** Who hears its events (platform/events.ts): said by every endpoint, none by default. */
  events: Subscribers;
}

/** An API with actions under one path, e.g. /indieauth/api/account/sign-in. */
interface ActionsSpec<C extends Capability> {
  base: string;
  actions: Record<string, Methods<C>>;
  /** The words for a path that is no action. */
  unknownAction: string;
  events: Subscribers;
}

export type Endpoint<C extends Capability = never> = (
  req: Request,
  rt: Runtime<C>,
  requester?: Partial<Requester>,
) => Promise<Response>;

async function runRoute<C extends Capability>(
  route: Route<C>,
  req: Request,
  rt: Runtime<C>,
  requester: Requester,
  subscribers: Subscribers,
): Promise<Response> {
  let reply: (ClientReply & { issuer: string }) | undefined;
  let subject: Subject | undefined;
  let emit: Emit | undefined;
  let response: Response;
  try {
    if (!rt.config.ok) {
      const { problems, development } = rt.config;
      throw new SetupIncomplete(describeProblems(problems), problems, development);
    }
    const { config } = rt.config;
    emit = subscribers({ rt, config, waitUntil: requester.waitUntil });
    checkOrigin(route.caller, "crossSite" in route ? route.crossSite : undefined, req, config);
    // Every body is read, and refused when too large, malformed or not what the route accepts,
    // before any work is done.
    const body =
      req.method === "POST"
        ? await readBody(req, route.body, route.answers === "json")
        : { form: new URLSearchParams() };
    const made = new Map<object, unknown>();
    const ctx: RequestContext<string, C> = {
      req,
      url: new URL(req.url),
      rt,
      config,
      requester,
      form: async () => body.form,
      json: async () => body.json ?? Promise.reject(new TypeError("this route reads no JSON object")),
      replyTo: (target) => (reply = { ...target, issuer: config.issuer }),
      emit,
      knows: (known) => void (subject = known ?? undefined),
      once: <T>(key: object, make: () => T): T => (made.has(key) ? made.get(key) : made.set(key, make()).get(key)) as T,
    };
    if (route.caller === "anyone" || route.caller === "same-origin") response = await route.run(ctx);
    else {
      // Known only to a session route's handler: no other can read (or forget to check) the owner.
      const owner = await route.owner.find(ctx);
      response = withCookies(await route.run(ctx, owner), owner.setCookies);
    }
  } catch (error) {
    // The refusal as answered (its code and words as fields), at the stage the handler had reached.
    if (emit && subject && error instanceof AnsweredError)
      await emit({ type: "refused", subject, error: error.error, description: error.description });
    response = errorResponse(error, route.answers, reply, req);
  }
  // The last line of defence: an answer that would send the browser where the route does not say.
  const stray = rt.config.ok ? strayRedirect(response, route.redirects, rt.config.config, reply) : null;
  if (stray === null) return response;
  console.error(`indieauth: ${req.method} ${new URL(req.url).pathname} answered ${stray}; refused instead`);
  return errorResponse(
    new AccessDenied("This step tried to send you somewhere it may not. Nothing was sent."),
    route.answers,
    undefined,
    req,
  );
}

/** RFC 6797: once seen over https, browsers use nothing else here for a year. (Browsers
 * ignore it over http, and local development sends none.) */
const STRICT_TRANSPORT = "max-age=31536000";

function secureTransport(response: Response, rt: Runtime): Response {
  if (rt.config.ok && rt.config.config.baseUrl.startsWith("https:"))
    response.headers.set("Strict-Transport-Security", STRICT_TRANSPORT);
  return response;
}

/** On an auth host of its own (platform/setup.ts) the server answers there only: on the blog's
 * other hosts its paths are refused, so that no page of the blog reaches them same-origin. */
function servedElsewhere(req: Request, rt: Runtime): NotFound | null {
  if (!rt.config.ok || rt.config.config.setup !== "auth-host") return null;
  const home = new URL(rt.config.config.baseUrl);
  return new URL(req.url).host === home.host
    ? null
    : new NotFound(`This IndieAuth server answers at ${home.origin} only.`);
}

function serve<C extends Capability>(
  methods: (req: Request) => Methods<C> | NotFound,
  cors: boolean,
  subscribers: Subscribers,
): Endpoint<C> {
  return async (req, rt, requester) => {
    const found = servedElsewhere(req, rt) ?? methods(req);
    if (found instanceof NotFound) return secureTransport(errorResponse(found, "json", undefined, req), rt);
    const allowed = Object.keys(found);
    if (cors && req.method === "OPTIONS") return secureTransport(preflight(allowed), rt);
    const route = found[req.method === "HEAD" ? "GET" : (req.method as Method)];
    const who = {
      ip: requester?.ip ?? "",
      userAgent: requester?.userAgent ?? req.headers.get("user-agent") ?? "",
      waitUntil: requester?.waitUntil,
    };
    const response = route
      ? await runRoute(route, req, rt, who, subscribers)
      : errorResponse(new MethodNotAllowed(allowed), "json", undefined, req);
    return secureTransport(cors ? readableByAnyOrigin(response) : response, rt);
  };
}

export function endpoint<C extends Capability = never>(spec: EndpointSpec<C>): Endpoint<C> {
  const { cors = false, events, ...methods } = spec;
  return serve(() => methods, cors, events);
}

export function actionsEndpoint<C extends Capability = never>(spec: ActionsSpec<C>): Endpoint<C> {
  return serve(
    (req) => {
      const action = new URL(req.url).pathname.slice(spec.base.length).replace(/\/$/, "");
      return Object.hasOwn(spec.actions, action) ? spec.actions[action]! : new NotFound(spec.unknownAction);
    },
    false,
    spec.events,
  );
}
