// LTI client-side OIDC storage ("LTI Client Side postMessages"): when the tool runs in an LMS
// iframe its own state cookie may not travel, so the login keeps the state in the platform's
// frame (lti.put_data) and the launch reads it back (lti.get_data) before signing in.
"use strict";
(function () {
  var box = document.getElementById("lti-storage");
  if (!box) return;
  var origin = box.dataset.platformOrigin;
  var state = box.dataset.state;
  var key = "state_" + state;

  function storageWindow() {
    var host = window.parent !== window ? window.parent : window.opener;
    if (!host) return null;
    if (box.dataset.target === "_parent") return host;
    try {
      return host.frames[box.dataset.target] || null;
    } catch (e) {
      return null;
    }
  }

  // Send one message to the platform's storage frame; resolves with its answer, or null.
  function ask(message, waitMs) {
    return new Promise(function (resolve) {
      var target = storageWindow();
      if (!target || !origin) return resolve(null);
      var id = "td-" + Math.random().toString(36).slice(2) + Date.now().toString(36);
      var timer = window.setTimeout(function () {
        window.removeEventListener("message", listen);
        resolve(null);
      }, waitMs);
      function listen(event) {
        var data = event.data;
        if (event.origin !== origin || !data || typeof data !== "object") return;
        if (data.message_id !== id || data.subject !== message.subject + ".response") return;
        window.clearTimeout(timer);
        window.removeEventListener("message", listen);
        resolve(data);
      }
      window.addEventListener("message", listen);
      message.message_id = id;
      target.postMessage(message, origin);
    });
  }

  function say(text) {
    var status = document.getElementById("lti-storage-status");
    if (status) status.textContent = text;
  }

  if (box.dataset.mode === "put") {
    // Whatever the answer, go on: without storage the state cookie is the check.
    ask({ subject: "lti.put_data", key: key, value: state }, 2000).then(function () {
      window.location.replace(box.dataset.next);
    });
    return;
  }

  ask({ subject: "lti.get_data", key: key }, 5000).then(function (answer) {
    if (!answer || answer.error || answer.value !== state) {
      say("Your LMS could not confirm this launch. Open the link from your LMS again.");
      return;
    }
    var form = document.getElementById("lti-storage-launch");
    fetch(form.action, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-LTI-Storage-Check": state, Accept: "application/json" },
      body: new URLSearchParams(new FormData(form)),
    })
      .then(function (response) {
        return response.json().then(function (body) {
          if (response.ok && typeof body.location === "string" && body.location.charAt(0) === "/" && body.location.charAt(1) !== "/") {
            window.location.replace(body.location);
          } else {
            say(body.detail || "The launch from your LMS was refused.");
          }
        });
      })
      .catch(function () {
        say("The launch could not be completed. Open the link from your LMS again.");
      });
  });
})();
