// The registration key checked as it is typed (templates/admin/archives.html), by the rule the
// server applies (Table 7.1: chave = número ["-" número], número = 10 or more digits;
// ibiportal.protocol.messages.check_key): a message under the field says what is wrong and where,
// or that the key is well formed. The server still checks it on submit; without this script the
// form works the same, its errors shown after submitting. The messages come from the page, in its
// language: data-key-check holds them, with %(name)s placeholders; a count of digits is said by
// portalPlural (portal.js), in the form its number asks.
"use strict";

function fill(template, values) {
  return template.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));
}

function keyProblem(key, messages) {
  const numbers = key.split("-");
  if (numbers.length > 2) {
    return { invalid: true, text: fill(messages.dash, { position: numbers[0].length + numbers[1].length + 2 }) };
  }
  let start = 1;
  for (let n = 0; n < numbers.length; n += 1) {
    const number = numbers[n];
    const wrong = number.search(/[^0-9]/);
    if (wrong >= 0) {
      return { invalid: true, text: fill(messages.digit, { position: start + wrong }) };
    }
    if (number.length < 10) {
      const text = n === 0
        ? portalPlural("%(count)s digit so far: the first number needs 10 or more (Table 7.1).",
          "%(count)s digits so far: the first number needs 10 or more (Table 7.1).", number.length)
        : portalPlural("%(count)s digit after the '-' so far: the second number needs 10 or more (Table 7.1).",
          "%(count)s digits after the '-' so far: the second number needs 10 or more (Table 7.1).", number.length);
      return { invalid: false, text };
    }
    start += number.length + 1;
  }
  return null;
}

function addKeyCheck(input) {
  const messages = JSON.parse(input.dataset.keyCheck);
  const note = document.createElement("p");
  note.id = `${input.id}-check`;
  note.className = "key-check";
  note.setAttribute("aria-live", "polite");
  const field = input.closest(".field") || input.parentElement;
  field.appendChild(note);
  const described = (input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
  input.setAttribute("aria-describedby", [...described, note.id].join(" "));
  const serverSaid = input.getAttribute("aria-invalid") === "true";

  input.addEventListener("input", () => {
    const key = input.value.trim();
    const problem = key ? keyProblem(key, messages) : null;
    note.classList.toggle("bad", Boolean(problem && problem.invalid));
    note.classList.toggle("good", Boolean(key) && !problem);
    note.textContent = !key ? "" : problem ? problem.text : messages.ok;
    if (problem && problem.invalid) {
      input.setAttribute("aria-invalid", "true");
    } else if (key || !serverSaid) {
      input.removeAttribute("aria-invalid");
    }
  });
}

document.querySelectorAll("input[data-key-check]").forEach(addKeyCheck);
