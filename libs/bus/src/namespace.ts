/**
 * Bus namespaces (NATS only): one deployment's streams and subjects on a shared NATS server, kept
 * apart from every other deployment's. With namespace `ns`, stream `USAGE` is `ns_USAGE` on the
 * server and subject `usage.record` is `ns.usage.record`; callers only ever see the logical names.
 * Without a namespace every name is used as given (the names of a bus created without the option).
 */

import { PROJECT_STREAMS } from "./subjects.js";

const NAMESPACE_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Namespaces equal to a top-level token of the project's subjects (`usage`, `events`, `audit`,
 * `config`, `dlq`) would make a namespaced stream's subjects (`usage.usage.>`) overlap an
 * un-namespaced stream's (`usage.>`), which NATS refuses.
 */
const RESERVED_NAMESPACES = new Set(
  PROJECT_STREAMS.flatMap((stream) => stream.subjects.map((subject) => subject.split(".")[0])),
);

/**
 * The namespace to use: `undefined` for none (`undefined` or `""`), else `namespace` itself.
 * Throws unless it is 1 to 32 of `A-Z a-z 0-9 _ -` and not a reserved subject token.
 */
export function validateNamespace(namespace: string | undefined): string | undefined {
  if (namespace === undefined || namespace === "") return undefined;
  if (!NAMESPACE_PATTERN.test(namespace)) {
    throw new Error(
      `invalid bus namespace "${namespace}": must be 1 to 32 characters of A-Z a-z 0-9 _ - (or empty for none)`,
    );
  }
  if (RESERVED_NAMESPACES.has(namespace)) {
    throw new Error(`invalid bus namespace "${namespace}": reserved (a top-level subject of the bus)`);
  }
  return namespace;
}

/** The server's name of logical stream `name`: `${ns}_${name}`. */
export function streamName(ns: string | undefined, name: string): string {
  return ns ? `${ns}_${name}` : name;
}

/** The logical name of server stream `name` (the namespace prefix removed). */
export function streamNameOut(ns: string | undefined, name: string): string {
  return ns && name.startsWith(`${ns}_`) ? name.slice(ns.length + 1) : name;
}

/** The server's subject (or subject filter) for logical `subject`: `${ns}.${subject}`. */
export function subjectIn(ns: string | undefined, subject: string): string {
  return ns ? `${ns}.${subject}` : subject;
}

/** The logical subject of server subject `subject` (the namespace prefix removed). */
export function subjectOut(ns: string | undefined, subject: string): string {
  return ns && subject.startsWith(`${ns}.`) ? subject.slice(ns.length + 1) : subject;
}
