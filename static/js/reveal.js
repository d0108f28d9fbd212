// A "Show" button beside each masked field marked data-reveal (the registration key of
// templates/admin/archives.html), so that a 20-digit key can be read back before it is sent.
// Without this script the field stays an ordinary masked field that works the same.
"use strict";

function addRevealButton(input) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "secondary reveal";
  button.textContent = portalText("Show");
  button.setAttribute("aria-controls", input.id);
  button.setAttribute("aria-pressed", "false");
  button.addEventListener("click", () => {
    const shown = input.type === "password";
    input.type = shown ? "text" : "password";
    button.textContent = portalText(shown ? "Hide" : "Show");
    button.setAttribute("aria-pressed", String(shown));
    input.focus();
  });
  input.insertAdjacentElement("afterend", button);
}

document.querySelectorAll("input[data-reveal]").forEach(addRevealButton);
