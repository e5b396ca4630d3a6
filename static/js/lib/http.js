/*
 * JSON over fetch with Django's CSRF token, for the page scripts that call the site's API.
 */

export function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (match) return decodeURIComponent(match[1]);
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

/** A request whose failure throws an Error carrying .status and .data (the error's words from
 * the answer, else `fallback`). */
export async function api(method, url, body, fallback) {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const error = new Error((data && data.error) || fallback);
    error.status = response.status;
    error.data = data;
    throw error;
  }
  return data;
}

/** A POST that never throws: {ok, status, data}. */
export async function post(url, body) {
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      credentials: "same-origin",
      body: JSON.stringify(body),
    });
  } catch (error) {
    return { ok: false, status: 0, data: { error: String(error) } };
  }
  let data = {};
  try {
    data = await response.json();
  } catch (error) {
    data = { error: response.statusText };
  }
  return { ok: response.ok, status: response.status, data };
}
