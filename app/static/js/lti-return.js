// Deep linking: post the signed content item back to the LMS at once (the page also has a button).
"use strict";
(function () {
  var form = document.getElementById("lti-return-form");
  if (form && form.dataset.autosubmit === "true") form.submit();
})();
