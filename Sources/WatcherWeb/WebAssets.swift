/// The pages: one HTML document, its style sheet and its script, served from the binary.
///
/// No framework, CDN or asset from elsewhere; the CSP forbids inline script. Every value from a wallet, a label, a node or a QR code is put in
/// the page as text (`textContent`), never as markup.
enum WebAssets {
    struct Asset {
        let type: String
        let body: String
    }

    static func asset(_ path: String) -> Asset? {
        switch path {
        case "/", "/index.html": Asset(type: "text/html; charset=utf-8", body: html)
        case "/app.css": Asset(type: "text/css; charset=utf-8", body: css)
        case "/app.js": Asset(type: "text/javascript; charset=utf-8", body: script)
        case "/favicon.ico": Asset(type: "image/svg+xml", body: icon)
        default: nil
        }
    }

    static let icon =
        ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f4e79"/></svg>"##

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Airlock watcher</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <header>
          <div class="brand"><span class="logo" aria-hidden="true"></span>Airlock <small>watch-only</small></div>
          <nav aria-label="Pages">
            <a href="#overview">Overview</a><a href="#history">History</a><a href="#utxos">Coins</a>
            <a href="#receive">Receive</a><a href="#send">Send</a><a href="#scan">Scan</a>
            <a href="#nodes">Nodes</a><a href="#wallets">Wallets</a>
          </nav>
          <label class="picker">Wallet <select id="wallet" aria-label="Wallet"></select></label>
        </header>
        <div id="banner" class="banner" hidden></div>
        <main id="main" tabindex="-1"></main>
        <footer>Holds no secrets: requests go to the signer as QR codes, answers come back through the camera.</footer>
        </body>
        </html>
        """#

    static let css = #"""
        :root { --ink: #1d2430; --muted: #5b6676; --line: #dfe4ea; --bg: #f5f7fa; --card: #fff; --accent: #1f4e79;
          --good: #1b7f46; --bad: #b42318; --warn: #9a6700; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--ink); font-size: 15px; }
        header { display: flex; align-items: center; gap: 24px; padding: 12px 28px; background: var(--accent); color: #fff;
          flex-wrap: wrap; }
        .brand { font-weight: 700; font-size: 18px; display: flex; align-items: center; gap: 8px; }
        .brand small { font-weight: 400; opacity: .75; font-size: 12px; }
        .logo { width: 18px; height: 18px; border-radius: 4px; background: linear-gradient(135deg, #9ec5ea, #fff); }
        nav { display: flex; gap: 4px; flex-wrap: wrap; }
        nav a { color: #e6eef7; text-decoration: none; padding: 6px 10px; border-radius: 6px; }
        nav a:hover, nav a:focus-visible { background: rgba(255,255,255,.15); outline: none; }
        nav a.active { background: #fff; color: var(--accent); }
        .picker { margin-left: auto; display: flex; gap: 8px; align-items: center; font-size: 13px; }
        .picker select { min-width: 140px; }
        main { max-width: 1100px; margin: 24px auto; padding: 0 24px; }
        footer { text-align: center; color: var(--muted); font-size: 12px; padding: 24px; }
        h1 { font-size: 22px; margin: 0 0 16px; }
        h2 { font-size: 16px; margin: 0 0 12px; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 16px; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 18px; margin-bottom: 16px; }
        .row { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
        .kv { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 16px; font-variant-numeric: tabular-nums; }
        .kv dt { color: var(--muted); } .kv dd { margin: 0; text-align: right; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
        .big { font-size: 26px; font-weight: 600; font-variant-numeric: tabular-nums; }
        .muted { color: var(--muted); font-size: 13px; }
        .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; word-break: break-all; }
        table { width: 100%; border-collapse: collapse; background: var(--card); }
        th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: middle; }
        th { color: var(--muted); font-weight: 600; font-size: 13px; }
        td.num { text-align: right; font-family: ui-monospace, monospace; white-space: nowrap; }
        .pos { color: var(--good); } .neg { color: var(--bad); }
        input, select, button, textarea { font: inherit; }
        input[type=text], input[type=number], select, textarea { padding: 7px 9px; border: 1px solid #c4ccd6; border-radius: 6px;
          background: #fff; }
        input.wide, textarea { width: 100%; }
        label { display: block; margin-bottom: 10px; } label > span { display: block; font-size: 13px; color: var(--muted); margin-bottom: 3px; }
        label.inline { display: inline-flex; gap: 6px; align-items: center; margin: 0; }
        button { padding: 8px 16px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff;
          cursor: pointer; }
        button.secondary { background: #fff; color: var(--accent); }
        button.danger { background: var(--bad); border-color: var(--bad); }
        button:disabled { opacity: .5; cursor: default; }
        button:focus-visible, input:focus-visible, select:focus-visible, a:focus-visible { outline: 3px solid #f0b429; outline-offset: 1px; }
        .progress { height: 8px; background: var(--line); border-radius: 4px; overflow: hidden; margin: 8px 0; }
        .progress > div { height: 100%; background: var(--good); width: 0; transition: width .2s; }
        .banner { max-width: 1100px; margin: 16px auto 0; padding: 10px 16px; border-radius: 8px; }
        .banner.error { background: #fde8e7; color: var(--bad); border: 1px solid #f5c2bf; }
        .banner.ok { background: #e6f4ea; color: var(--good); border: 1px solid #b7dfc4; }
        .qr { background: #fff; padding: 8px; border: 1px solid var(--line); border-radius: 8px; image-rendering: pixelated; }
        .qrbox { display: flex; flex-direction: column; align-items: center; gap: 8px; }
        .tag { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; background: #eef2f7; color: var(--muted); }
        .tag.good { background: #e6f4ea; color: var(--good); } .tag.warn { background: #fff4d6; color: var(--warn); }
        video { display: block; max-width: 100%; border-radius: 8px; background: #111; margin: 12px 0; }
        video[hidden] { display: none; }
        .scanner .row { margin-bottom: 8px; }
        pre.lines { background: #f0f3f7; padding: 12px; border-radius: 8px; white-space: pre-wrap; margin: 8px 0; }
        .spaced { margin-top: 16px; }
        .label-edit { width: 100%; border: 1px solid transparent; background: transparent; }
        .label-edit:hover, .label-edit:focus { border-color: #c4ccd6; background: #fff; }
        """#
}
