"""How the browser tests, and ``docs/make_screenshots.py``, start Debian's Chromium
(Playwright's own browser download does not work here): with what no page needs turned off.

A module of its own, not ``conftest.py``: the screenshot script takes the same flags without
importing the tests' fixtures.
"""
from __future__ import annotations

#: The whole browser a reader runs: the everyday walk (``test_browser_everyday.py``) and the
#: screenshots of the README and the documentation site (``docs/make_screenshots.py``).
CHROMIUM = "/usr/bin/chromium"
#: Debian's headless build of the same Chromium (package ``chromium-headless-shell``, the same
#: Blink and V8 without the browser's own windows and UI): every other browser test drives it, for
#: about 60 % of the CPU (two browser files: 20 against 32 s of CPU, 85 against 159 s).
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
#: Playwright's own ``--disable-features`` (playwright 1.65.2, ``chromiumSwitches.ts``), repeated:
#: Chromium reads only the last ``--disable-features`` it is given, so ours must hold them too
#: (``test_chromium.py`` checks this list against the installed Playwright).
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin",
    "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
    "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
)
#: Debian's ``chromium`` runs headless as the whole browser: each browser context is a window, and
#: each window loaded its address bar's two pop-ups as WebUI pages in a renderer of their own,
#: about 1.4 s of CPU per context that no test looks at (of some 3 s per browser test; the
#: suite's CPU was half Chromium's). Turned off, a context costs 0.3 s.
BROWSER_UI_NOT_TESTED = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + BROWSER_UI_NOT_TESTED)]
