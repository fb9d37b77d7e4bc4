// /register: dynamic client registration (RFC 7591), storing nothing; /register/<id>: a registered app's metadata document.
import { clientRegistration } from "../lib/endpoints/registration.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(clientRegistration);
