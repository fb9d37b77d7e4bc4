/** A Content-Type's media type, lowercased, without parameters ("" when there is none). */
export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();
}
