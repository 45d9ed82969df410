// Problem list: apply a filter as soon as it changes. The filters are a plain GET form, so their
// state lives in the URL (shareable, back/forward work) and the page works the same without JS.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) return;
  // Empty fields are left out of the URL: /problems?difficulty=easy rather than ?q=&difficulty=easy&...
  form.addEventListener("submit", function () {
    Array.prototype.forEach.call(form.elements, function (field) {
      if (field.name && !field.value) field.disabled = true;
    });
  });
  window.addEventListener("pageshow", function () { // coming back via history: fields usable again
    Array.prototype.forEach.call(form.elements, function (field) { field.disabled = false; });
  });
  form.querySelectorAll("select").forEach(function (select) {
    select.addEventListener("change", function () { form.requestSubmit(); });
  });
})();
