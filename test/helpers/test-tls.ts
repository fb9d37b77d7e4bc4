// The run's https certificate for servers on 127.0.0.1 (the production Blobs double): a CA made
// for the run and a certificate it signs for 127.0.0.1. A test run's global setup makes them
// once and trusts the CA in every test worker through NODE_EXTRA_CA_CERTS (read by Node only when
// a process starts, so it is set before the workers are). No vitest here.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";

export interface TestCertificate {
  /** PEM: the CA that signed `cert` (what a client must trust). */
  caCert: string;
  key: string;
  cert: string;
}

/** Where the run's certificate is kept, for the workers (set by trustRunCertificate). */
const DIRECTORY_VARIABLE = "INDIEAUTH_TEST_TLS_DIR";

/** A CA and a certificate it signs for 127.0.0.1, valid a day. */
export async function makeTestCertificate(): Promise<TestCertificate> {
  const notAfterDate = new Date(Date.now() + 24 * 60 * 60 * 1000);
  const common = { keyType: "ec", curve: "P-256", algorithm: "sha256", notAfterDate } as const;
  const ca = await generate([{ name: "commonName", value: "netlify-indieauth test run CA" }], {
    ...common,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: "commonName", value: "127.0.0.1" }], {
    ...common,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] },
    ],
  });
  return { caCert: ca.cert, key: leaf.private, cert: leaf.cert };
}

/** For a global setup: makes the run's certificate and trusts its CA in every process started
 * after this (test workers, and what they start). Returns the clean-up. */
export async function trustRunCertificate(): Promise<() => Promise<void>> {
  const certificate = await makeTestCertificate();
  const directory = await mkdtemp(join(tmpdir(), "indieauth-test-tls-"));
  // NODE_EXTRA_CA_CERTS names one file: a CA the machine already adds that way stays trusted.
  const already = process.env.NODE_EXTRA_CA_CERTS
    ? await readFile(process.env.NODE_EXTRA_CA_CERTS, "utf8").catch(() => "")
    : "";
  await Promise.all([
    writeFile(join(directory, "trusted.pem"), `${already}\n${certificate.caCert}`),
    writeFile(join(directory, "ca.pem"), certificate.caCert),
    writeFile(join(directory, "key.pem"), certificate.key),
    writeFile(join(directory, "cert.pem"), certificate.cert),
  ]);
  process.env[DIRECTORY_VARIABLE] = directory;
  process.env.NODE_EXTRA_CA_CERTS = join(directory, "trusted.pem");
  return () => rm(directory, { recursive: true, force: true });
}

/** The run's certificate, which this process trusts (trustRunCertificate ran before it started);
 * null outside such a run. */
export async function runCertificate(): Promise<TestCertificate | null> {
  const directory = process.env[DIRECTORY_VARIABLE];
  if (!directory) return null;
  const [caCert, key, cert] = await Promise.all(
    ["ca.pem", "key.pem", "cert.pem"].map((file) => readFile(join(directory, file), "utf8")),
  );
  return { caCert: caCert!, key: key!, cert: cert! };
}
