extension WebAssets {
    /// The page's script: renders the JSON of the API with `textContent` only.
    static let script = #"""
        'use strict';
        const state = { csrf: null, readOnly: false, wallets: [], wallet: null, answers: [] };
        const main = () => document.getElementById('main');

        async function api(path, body) {
          const options = body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json',
            'X-Airlock-CSRF': state.csrf }, body: JSON.stringify(body) };
          const response = await fetch(path, options);
          const data = await response.json().catch(() => ({ error: 'the server answered ' + response.status }));
          if (!response.ok) throw new Error(data.error || ('the server answered ' + response.status));
          return data;
        }

        async function post(path, bytes, contentType) {
          const response = await fetch(path, { method: 'POST', body: bytes,
            headers: { 'Content-Type': contentType, 'X-Airlock-CSRF': state.csrf } });
          const data = await response.json().catch(() => ({ error: 'the server answered ' + response.status }));
          if (!response.ok) throw new Error(data.error || ('the server answered ' + response.status));
          return data;
        }

        function el(tag, attrs, ...children) {
          const node = document.createElement(tag);
          for (const [key, value] of Object.entries(attrs || {})) {
            if (key === 'class') node.className = value;
            else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
            else if (value === true) node.setAttribute(key, '');
            else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, String(value));
          }
          for (const child of children.flat()) {
            if (child === null || child === undefined) continue;
            node.append(child instanceof Node ? child : document.createTextNode(String(child)));
          }
          return node;
        }

        function show(...nodes) { main().replaceChildren(...nodes.flat().filter(n => n !== null && n !== undefined)); }
        function banner(text, kind) {
          const b = document.getElementById('banner');
          b.textContent = text; b.className = 'banner ' + (kind || 'error'); b.hidden = !text;
        }
        function btc(sats) {
          const negative = sats < 0; const v = Math.abs(sats);
          return (negative ? '-' : '') + Math.floor(v / 1e8) + '.' + String(v % 1e8).padStart(8, '0') + ' BTC';
        }
        function units(text, decimals) {
          const digits = String(text || '0').padStart(decimals + 1, '0');
          const whole = digits.slice(0, digits.length - decimals); const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
          return whole + (fraction ? '.' + fraction : '');
        }
        function field(label, input) { return el('label', {}, el('span', {}, label), input); }
        function chainOf(name) { const w = state.wallets.find(x => x.name === name); return w ? w.chain : 'bitcoin'; }
        function guard(fn) {
          return async (...args) => { banner(''); try { await fn(...args); } catch (e) { banner(e.message); } };
        }

        async function loadWallets() {
          state.wallets = await api('/api/wallets');
          const select = document.getElementById('wallet');
          const previous = state.wallet;
          select.replaceChildren(...state.wallets.map(w =>
            el('option', { value: w.name }, w.name + (w.chain === 'ethereum' ? ' (Ethereum)' : ''))));
          if (state.wallets.some(w => w.name === previous)) select.value = previous;
          state.wallet = select.value || null;
        }

        // ---- overview
        async function overview() {
          const data = await api('/api/overview');
          const cards = data.bitcoin.map(b => {
            const bar = el('div', { class: 'progress', hidden: true }, el('div'));
            const status = el('div', { class: 'muted', 'aria-live': 'polite' });
            return el('section', { class: 'card', 'data-wallet': b.wallet },
              el('div', { class: 'row' }, el('h2', {}, b.wallet), el('span', { class: 'tag' }, 'Bitcoin ' + (data.networks[b.wallet] || ''))),
              el('div', { class: 'big', 'data-total': b.total }, btc(b.total)),
              el('dl', { class: 'kv' }, el('dt', {}, 'Confirmed'), el('dd', {}, btc(b.confirmed)),
                el('dt', {}, 'Unconfirmed'), el('dd', {}, btc(b.unconfirmed)), el('dt', {}, 'Immature'), el('dd', {}, btc(b.immature)),
                el('dt', {}, 'Frozen'), el('dd', {}, btc(b.frozen)),
                el('dt', {}, 'Last sync'), el('dd', {}, b.height === null ? 'never' : 'block ' + b.height)),
              bar, status,
              state.readOnly ? null : el('button', { class: 'secondary', 'data-sync': b.wallet,
                onclick: guard(() => sync(b.wallet, 'btc', bar, status)) }, 'Sync'));
          });
          const eth = data.ethereum.map(a => {
            const bar = el('div', { class: 'progress', hidden: true }, el('div'));
            const status = el('div', { class: 'muted', 'aria-live': 'polite' });
            return el('section', { class: 'card', 'data-account': a.account },
              el('div', { class: 'row' }, el('h2', {}, a.account), el('span', { class: 'tag' }, 'Ethereum chain ' + a.chain_id)),
              el('div', { class: 'big', 'data-wei': a.wei }, units(a.wei, 18) + ' ETH'),
              el('dl', { class: 'kv' }, (a.tokens || []).map(t => [el('dt', {}, t.symbol), el('dd', {}, units(t.amount, t.decimals))]),
                el('dt', {}, 'Last sync'), el('dd', {}, a.block === null ? 'never' : 'block ' + a.block)),
              bar, status,
              state.readOnly ? null : el('button', { class: 'secondary', 'data-sync': a.account, onclick: guard(() => sync(a.account, 'eth', bar, status)) }, 'Sync'));
          });
          const nodes = el('section', { class: 'card' }, el('h2', {}, 'Nodes'),
            el('dl', { class: 'kv' }, el('dt', {}, 'Bitcoin'), el('dd', { class: 'mono' }, data.nodes.bitcoin || 'not set'),
              el('dt', {}, 'Ethereum'), el('dd', { class: 'mono' }, data.nodes.ethereum || 'not set')));
          const empty = cards.length + eth.length === 0 ?
            el('section', { class: 'card' }, 'No wallets yet: import one on the ', el('a', { href: '#wallets' }, 'Wallets'), ' page.') : null;
          show(el('h1', {}, 'Overview'), empty, el('div', { class: 'grid' }, cards, eth, nodes));
        }

        async function sync(name, chain, bar, status) {
          const { job } = await api('/api/sync', { wallet: name, chain });
          bar.hidden = false; status.textContent = 'syncing…';
          await new Promise(resolve => {
            const events = new EventSource('/api/sync/events?job=' + encodeURIComponent(job));
            events.onmessage = (event) => {
              const s = JSON.parse(event.data);
              const share = s.expected ? Math.min(100, 100 * s.checked / s.expected) : 0;
              bar.firstChild.style.width = (s.done ? 100 : share) + '%';
              status.textContent = s.done ? s.message : ('checked ' + s.checked + ' of ' + s.expected + ' addresses');
              if (s.done) { events.close(); if (s.failed) banner(s.message); resolve(); }
            };
            events.onerror = () => { events.close(); resolve(); };
          });
          if (location.hash === '#overview' || location.hash === '') await overview();
        }

        // ---- history
        async function history() {
          if (chainOf(state.wallet) === 'ethereum') {
            const data = await api('/api/history?chain=eth&wallet=' + encodeURIComponent(state.wallet || ''));
            return show(el('h1', {}, 'History'), el('table', {}, el('thead', {}, el('tr', {}, ['Hash', 'To', 'Value', 'Status'].map(h => el('th', {}, h)))),
              el('tbody', {}, (data.transactions || []).map(t => el('tr', {}, el('td', { class: 'mono' }, t.hash || ''),
                el('td', { class: 'mono' }, t.to || ''), el('td', { class: 'num' }, t.value || ''), el('td', {}, t.status || ''))))));
          }
          const data = await api('/api/history?wallet=' + encodeURIComponent(state.wallet || ''));
          const rows = data.entries.map(e => el('tr', {},
            el('td', {}, e.first_seen),
            el('td', { class: 'num ' + (e.net < 0 ? 'neg' : 'pos') }, (e.net < 0 ? '' : '+') + btc(e.net)),
            el('td', {}, e.height === null ? el('span', { class: 'tag warn' }, 'unconfirmed') :
              el('span', { class: 'tag good' }, e.confirmations + ' conf.')),
            el('td', { class: 'mono' }, e.txid.slice(0, 16) + '…'),
            el('td', {}, el('input', { type: 'text', class: 'label-edit', value: e.label || '', 'aria-label': 'Label of ' + e.txid,
              readonly: state.readOnly, 'data-txid': e.txid,
              onchange: guard(async (ev) => { await api('/api/labels', { wallet: state.wallet, type: 'tx', ref: e.txid,
                label: ev.target.value }); banner('label saved', 'ok'); }) }))));
          show(el('h1', {}, 'History'), el('p', { class: 'muted' }, data.total + ' transactions; labels are saved as you leave the field.'),
            el('table', {}, el('thead', {}, el('tr', {}, ['Date', 'Amount', 'Confirmations', 'Transaction', 'Label'].map(h => el('th', {}, h)))),
              el('tbody', {}, rows)));
        }

        // ---- coins
        async function utxos() {
          const data = await api('/api/utxos?wallet=' + encodeURIComponent(state.wallet || ''));
          const chosen = new Set(state.coins || []);
          const rows = data.map(u => el('tr', {},
            el('td', {}, el('input', { type: 'checkbox', class: 'choose', 'aria-label': 'Spend ' + u.outpoint, 'data-outpoint': u.outpoint,
              checked: chosen.has(u.outpoint), onchange: (e) => { if (e.target.checked) chosen.add(u.outpoint); else chosen.delete(u.outpoint); } })),
            el('td', { class: 'mono' }, u.outpoint.slice(0, 20) + '…:' + u.vout),
            el('td', { class: 'num' }, btc(u.value)),
            el('td', { class: 'mono' }, u.address),
            el('td', {}, u.height === null ? 'unconfirmed' : 'block ' + u.height),
            el('td', {}, state.readOnly ? (u.frozen ? 'frozen' : '') : el('button', { class: u.frozen ? '' : 'secondary',
              onclick: guard(async () => { await api('/api/freeze', { wallet: state.wallet, outpoints: [u.outpoint], frozen: !u.frozen }); await utxos(); }) },
              u.frozen ? 'Unfreeze' : 'Freeze'))));
          show(el('h1', {}, 'Coins'), el('p', { class: 'muted' }, 'A frozen coin is never spent unless you name it. Tick coins to spend exactly those.'),
            el('table', {}, el('thead', {}, el('tr', {}, ['', 'Coin', 'Value', 'Address', 'Height', ''].map(h => el('th', {}, h)))), el('tbody', {}, rows)),
            state.readOnly ? null : el('div', { class: 'row spaced' }, el('button', { id: 'spend-chosen',
              onclick: () => { state.coins = [...chosen]; location.hash = '#send'; } }, 'Spend the chosen coins')));
        }

        // ---- receive
        function receive() {
          const eth = chainOf(state.wallet) === 'ethereum';
          const amount = el('input', { type: 'text', id: 'amount', placeholder: eth ? '0.1eth' : '0.001btc' });
          const label = el('input', { type: 'text', id: 'label' });
          const out = el('div');
          const make = guard(async (fresh) => {
            const r = await api('/api/receive', { wallet: state.wallet, chain: eth ? 'eth' : 'btc', amount: amount.value,
              label: label.value, fresh });
            out.replaceChildren(el('div', { class: 'qrbox card' },
              el('img', { class: 'qr', src: 'data:image/png;base64,' + r.qr_png, alt: 'QR code of ' + r.uri, width: 280 }),
              el('div', { class: 'mono big', id: 'address' }, r.address),
              el('div', { class: 'mono muted', id: 'uri' }, r.uri)));
          });
          show(el('h1', {}, 'Receive'), el('section', { class: 'card' },
            field('Amount (optional)', amount), eth ? null : field('Label (optional)', label),
            state.readOnly ? el('p', { class: 'muted' }, 'read-only: no new address is handed out') :
              el('div', { class: 'row' }, el('button', { onclick: () => make(false) }, 'Show address'),
                eth ? null : el('button', { class: 'secondary', onclick: () => make(true) }, 'New address'))), out);
        }

        // ---- send
        function send() {
          if (state.readOnly) return show(el('h1', {}, 'Send'), el('p', {}, 'This server is read-only.'));
          if (chainOf(state.wallet) === 'ethereum') return ethSend();
          const list = el('div');
          const addRecipient = () => list.append(el('div', { class: 'row recipient' },
            el('input', { type: 'text', class: 'address', placeholder: 'address', size: 48, 'aria-label': 'Recipient address' }),
            el('input', { type: 'text', class: 'amount', placeholder: '0.001btc', size: 14, 'aria-label': 'Amount' })));
          addRecipient();
          const max = el('input', { type: 'checkbox', id: 'max' });
          const rate = el('input', { type: 'text', id: 'fee-rate', placeholder: 'sat/vB (empty: the node\u2019s estimate)' });
          const rbf = el('input', { type: 'checkbox', id: 'rbf', checked: true });
          const out = el('div');
          const create = guard(async () => {
            const recipients = [...list.querySelectorAll('.recipient')].map(r => ({ address: r.querySelector('.address').value.trim(),
              amount: r.querySelector('.amount').value.trim() })).filter(r => r.address);
            const r = await api('/api/send', { wallet: state.wallet, recipients, max: max.checked, fee_rate: rate.value, rbf: rbf.checked,
              utxos: state.coins || [] });
            out.replaceChildren(requestView(r));
          });
          const coins = (state.coins || []).length ? el('p', { class: 'muted', id: 'chosen-coins' }, 'Spending exactly ' + state.coins.length +
            ' chosen coin(s). ', el('button', { class: 'secondary', onclick: () => { state.coins = []; send(); } }, 'Let the wallet choose')) : null;
          show(el('h1', {}, 'Send'), el('section', { class: 'card' }, coins, el('h2', {}, 'Recipients'), list,
            el('button', { class: 'secondary', onclick: addRecipient }, 'Add recipient'),
            el('div', { class: 'row' }, el('label', { class: 'inline' }, max, 'Send everything (max)'),
              el('label', { class: 'inline' }, rbf, 'Replace-by-fee')),
            field('Fee rate', rate), el('button', { id: 'create', onclick: create }, 'Create request')), out);
        }

        function ethSend() {
          const to = el('input', { type: 'text', id: 'to', class: 'wide' });
          const amount = el('input', { type: 'text', id: 'amount', placeholder: '0.1eth (or token units)' });
          const token = el('input', { type: 'text', id: 'token', placeholder: 'empty for ETH, or a followed token' });
          const out = el('div');
          show(el('h1', {}, 'Send'), el('section', { class: 'card' }, field('To', to), field('Amount', amount), field('Token', token),
            el('button', { id: 'create', onclick: guard(async () => {
              out.replaceChildren(requestView(await api('/api/eth/send', { wallet: state.wallet, to: to.value, amount: amount.value, token: token.value })));
            }) }, 'Create request')), out);
        }

        function requestView(r) {
          let frame = 0; let timer = null; let fps = 4; let size = 6;
          const img = el('img', { class: 'qr', id: 'request-frame', alt: 'request QR code' });
          const counter = el('div', { class: 'muted', id: 'frame-counter', 'aria-live': 'off' });
          const draw = () => { img.src = '/api/request/frame?request=' + r.request + '&n=' + frame + '&size=' + size;
            img.dataset.frame = String(frame); counter.textContent = 'frame ' + (frame + 1) + ' of ' + r.frames; };
          const start = () => { clearInterval(timer); timer = setInterval(() => { frame = (frame + 1) % r.frames; draw(); }, 1000 / fps); };
          const speed = el('select', { id: 'speed', 'aria-label': 'Frames a second', onchange: (e) => { fps = Number(e.target.value); start(); } },
            [1, 2, 4, 8].map(n => el('option', { value: n, selected: n === 4 }, n + ' frames/s')));
          const sizes = el('select', { id: 'size', 'aria-label': 'Size', onchange: (e) => { size = Number(e.target.value); draw(); } },
            [4, 6, 8, 10].map(n => el('option', { value: n, selected: n === 6 }, ['small', 'medium', 'large', 'huge'][[4, 6, 8, 10].indexOf(n)])));
          const pause = el('button', { class: 'secondary', onclick: () => { if (timer) { clearInterval(timer); timer = null; pause.textContent = 'Play'; } else { start(); pause.textContent = 'Pause'; } } }, 'Pause');
          draw(); if (r.frames > 1) start();
          return el('section', { class: 'card', id: 'request', 'data-request': r.request, 'data-frames': r.frames },
            el('h2', {}, 'Show this to the signer'), el('pre', { class: 'lines' }, r.summary.join('\n')),
            el('div', { class: 'qrbox' }, img, counter),
            el('div', { class: 'row' }, speed, sizes, r.frames > 1 ? pause : null,
              el('a', { href: '/api/request/frame?request=' + r.request + '&n=0', download: 'request-frame.png' }, 'PNG'),
              el('a', { href: '/api/request/gif?request=' + r.request + '&fps=4', download: 'request.gif' }, 'GIF'),
              el('a', { href: '/api/request/file?request=' + r.request, download: '' }, 'File')),
            el('p', {}, 'Then scan the signer\u2019s answer on the ', el('a', { href: '#scan' }, 'Scan'), ' page.'));
        }

        // ---- scanning (camera, image, GIF or video): gray frames go to the server, which decodes them with zbar
        function scanner(onComplete) {
          let scan = null; let busy = false; let running = null; let stream = null; let finished = false;
          const video = el('video', { muted: true, playsinline: true, autoplay: true, width: 480, hidden: true });
          const canvas = document.createElement('canvas');
          const progress = el('div', { class: 'progress' }, el('div'));
          const status = el('div', { id: 'scan-status', 'aria-live': 'polite' }, 'not scanning');
          async function ensure() { if (!scan) { scan = (await api('/api/scan/new', {})).scan; finished = false; } return scan; }
          async function grab(source, width, height) {
            if (busy || !width || !height) return; busy = true;
            try {
              const scale = Math.min(1, 960 / width); const w = Math.round(width * scale); const h = Math.round(height * scale);
              canvas.width = w; canvas.height = h; const ctx = canvas.getContext('2d', { willReadFrequently: true });
              ctx.drawImage(source, 0, 0, w, h); const rgba = ctx.getImageData(0, 0, w, h).data; const gray = new Uint8Array(w * h);
              for (let i = 0; i < w * h; i++) gray[i] = (rgba[4 * i] * 299 + rgba[4 * i + 1] * 587 + rgba[4 * i + 2] * 114) / 1000;
              const id = await ensure();
              const p = await post('/api/scan/frame?scan=' + id + '&w=' + w + '&h=' + h, gray, 'application/octet-stream');
              report(p);
            } finally { busy = false; }
          }
          function report(p) {
            progress.firstChild.style.width = (100 * p.fraction) + '%';
            status.textContent = p.complete ? 'complete: ' + p.kind : (p.total ? p.received + ' of ' + p.total + ' parts' :
              (p.received ? p.received + ' parts' : 'looking for a QR code…')) + (p.error ? ' (' + p.error + ')' : '');
            if (p.complete) { stop(); finished = true; const done = scan; scan = null; onComplete(done, p.kind); }
          }
          function stop() { clearInterval(running); running = null; if (stream) stream.getTracks().forEach(t => t.stop()); stream = null; video.pause(); video.hidden = true; }
          const camera = el('button', { id: 'camera', onclick: guard(async () => {
            stream = await navigator.mediaDevices.getUserMedia({ video: { width: 1280, height: 720 } });
            video.srcObject = stream; video.hidden = false; await video.play(); status.textContent = 'looking for a QR code…';
            clearInterval(running); running = setInterval(() => grab(video, video.videoWidth, video.videoHeight).catch(e => banner(e.message)), 120);
          }) }, 'Start camera');
          const upload = el('input', { type: 'file', id: 'upload', accept: 'image/*,video/*', 'aria-label': 'Image, GIF or video file',
            onchange: guard(async (e) => {
              const file = e.target.files[0]; if (!file) return; finished = false; const url = URL.createObjectURL(file);
              if (file.type.startsWith('video/')) {
                video.srcObject = null; video.src = url; video.loop = true; video.hidden = false; await video.play();
                clearInterval(running); running = setInterval(() => grab(video, video.videoWidth, video.videoHeight).catch(er => banner(er.message)), 100);
              } else if (file.type === 'image/gif' && 'ImageDecoder' in window) {
                // Every frame of an animated GIF, in order, decoded by the browser.
                const decoder = new ImageDecoder({ data: await file.arrayBuffer(), type: 'image/gif' });
                await decoder.tracks.ready;
                const count = decoder.tracks.selectedTrack.frameCount;
                for (let round = 0; round < 3 && !finished; round++) {
                  for (let i = 0; i < count && !finished; i++) {
                    const { image } = await decoder.decode({ frameIndex: i });
                    await grab(image, image.displayWidth, image.displayHeight); image.close();
                  }
                }
              } else {
                const image = new Image(); image.src = url; await image.decode(); document.body.append(image); image.style.position = 'absolute'; image.style.left = '-99999px';
                await grab(image, image.naturalWidth, image.naturalHeight);
                if (file.type === 'image/gif') { clearInterval(running); running = setInterval(() => grab(image, image.naturalWidth, image.naturalHeight).catch(er => banner(er.message)), 100); }
              }
            }) });
          const paste = el('textarea', { id: 'paste', rows: 2, placeholder: 'or paste the text of the QR codes, one a line' });
          const pasteButton = el('button', { class: 'secondary', onclick: guard(async () => {
            const id = await ensure(); report(await post('/api/scan/text?scan=' + id, paste.value, 'text/plain')); }) }, 'Read text');
          return el('div', { class: 'scanner' }, el('div', { class: 'row' }, camera, el('label', { class: 'inline' }, 'File', upload),
            el('button', { class: 'secondary', onclick: stop }, 'Stop')), video, progress, status, paste, pasteButton);
        }

        function scanPage() {
          const review = el('div', { id: 'review' });
          const list = el('div', { class: 'muted', id: 'answers' });
          const refresh = guard(async () => {
            list.textContent = state.answers.length + ' answer(s) scanned';
            if (!state.answers.length) return review.replaceChildren();
            if (state.answers[0].kind === 'eth-signature') {
              return review.replaceChildren(el('section', { class: 'card' }, el('h2', {}, 'Signed Ethereum transaction'),
                state.readOnly ? null : el('button', { id: 'broadcast', onclick: guard(async () => {
                  const r = await api('/api/eth/broadcast', { wallet: state.wallet, scan: state.answers[0].scan });
                  state.answers = []; await refresh(); banner('sent: ' + r.hash, 'ok'); }) }, 'Broadcast')));
            }
            const r = await api('/api/answers/review', { wallet: state.wallet, scans: state.answers.map(a => a.scan) });
            review.replaceChildren(el('section', { class: 'card' }, el('h2', {}, r.complete ? 'Ready to send' : 'Not complete yet'),
              el('pre', { class: 'lines', id: 'review-lines' }, r.lines.join('\n') + (r.note ? '\n' + r.note : '')),
              el('p', { class: 'muted' }, 'Signatures per input: ' + r.signatures.join(', ') + '. Scan another signer\u2019s answer to add its signatures.'),
              r.complete && !state.readOnly ? el('button', { id: 'broadcast', onclick: guard(async () => {
                const b = await api('/api/broadcast', { wallet: state.wallet, scans: state.answers.map(a => a.scan) });
                state.answers = []; await refresh(); banner('sent: ' + b.txid, 'ok'); }) }, 'Broadcast') : null));
          });
          show(el('h1', {}, 'Scan the signer\u2019s answer'), el('section', { class: 'card' },
            scanner((scan, kind) => { state.answers.push({ scan, kind }); refresh(); })), list, review);
          refresh();
        }

        // ---- nodes and wallets
        async function nodes() {
          const data = await api('/api/nodes');
          const url = el('input', { type: 'text', id: 'node-url', class: 'wide', placeholder: 'electrum://127.0.0.1:50001, bitcoind://…, eth+http://127.0.0.1:8545' });
          show(el('h1', {}, 'Nodes'), el('section', { class: 'card' }, el('dl', { class: 'kv' },
            el('dt', {}, 'Bitcoin'), el('dd', { class: 'mono' }, data.bitcoin || 'not set'),
            el('dt', {}, 'Ethereum'), el('dd', { class: 'mono' }, data.ethereum || 'not set'))),
            state.readOnly ? null : el('section', { class: 'card' }, field('Set a node', url),
              el('button', { onclick: guard(async () => { await api('/api/nodes', { url: url.value }); await nodes(); banner('node saved', 'ok'); }) }, 'Save')));
        }

        async function walletsPage() {
          await loadWallets();
          const name = el('input', { type: 'text', id: 'import-name' });
          const network = el('select', { id: 'import-network' }, ['', 'bitcoin', 'testnet', 'signet', 'regtest'].map(n => el('option', { value: n }, n || 'from the keys')));
          const rows = state.wallets.map(w => el('tr', {}, el('td', {}, w.name), el('td', {}, w.chain),
            el('td', {}, w.network || ('chain ' + w.chain_id)),
            el('td', {}, state.readOnly ? null : el('button', { class: 'danger', onclick: guard(async () => {
              if (!confirm('Delete the wallet \u201c' + w.name + '\u201d from this watcher? (The signer keeps its keys.)')) return;
              await api('/api/wallets/delete', { name: w.name, chain: w.chain === 'ethereum' ? 'eth' : 'btc' }); await walletsPage(); }) }, 'Delete'))));
          show(el('h1', {}, 'Wallets'), el('table', {}, el('thead', {}, el('tr', {}, ['Name', 'Chain', 'Network', ''].map(h => el('th', {}, h)))), el('tbody', {}, rows)),
            state.readOnly ? null : el('section', { class: 'card spaced' }, el('h2', {}, 'Import: scan the signer\u2019s account QR'),
              field('Name', name), field('Network', network),
              scanner(guard(async (scan) => { const r = await api('/api/wallets/import', { scan, name: name.value, network: network.value });
                banner('imported ' + r.name, 'ok'); await walletsPage(); }))));
        }

        const pages = { overview, history, utxos, receive, send, scan: scanPage, nodes, wallets: walletsPage };
        async function render() {
          const page = (location.hash || '#overview').slice(1);
          document.querySelectorAll('nav a').forEach(a => a.classList.toggle('active', a.getAttribute('href') === '#' + page));
          banner('');
          try { await (pages[page] || overview)(); } catch (e) { banner(e.message); }
          document.body.dataset.page = page;
        }

        document.addEventListener('DOMContentLoaded', async () => {
          try {
            const s = await api('/api/session'); state.csrf = s.csrf; state.readOnly = s.read_only;
            if (state.readOnly) document.body.classList.add('read-only');
            await loadWallets();
          } catch (e) { banner(e.message); }
          document.getElementById('wallet').addEventListener('change', (e) => { state.wallet = e.target.value; render(); });
          window.addEventListener('hashchange', render);
          render();
        });
        """#
}
