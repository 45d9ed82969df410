// JSON requests to the page's API with the CSRF token; errors become messages a learner can act on.

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

export function errorText(status, body) {
  if (body && typeof body.detail === "string") return body.detail;
  if (status === 0) return "Could not reach the server. Check your connection; your code is still here.";
  return "The request failed (HTTP " + status + "). Your code is still here; try again.";
}

/** fetch() that resolves to the JSON body, or rejects with an Error carrying status and body. */
export function request(method, url, payload, extra) {
  const opts = {
    method,
    headers: { Accept: "application/json", "X-CSRF-Token": csrfToken() },
    credentials: "same-origin",
  };
  if (payload !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(payload);
  }
  if (extra && extra.keepalive) opts.keepalive = true;
  return fetch(url, opts).then(
    (r) =>
      r.json().catch(() => null).then((body) => {
        if (!r.ok) {
          const err = new Error(errorText(r.status, body));
          err.status = r.status;
          err.body = body;
          throw err;
        }
        return body;
      }),
    () => {
      const err = new Error(errorText(0));
      err.status = 0;
      throw err;
    },
  );
}
