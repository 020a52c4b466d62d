import { StrictMode, useEffect, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { readToken, saveToken } from './api.js';
import { ChatPage } from './chat-page.js';
import { SessionPage } from './session-page.js';
import { SessionsPage } from './sessions-page.js';
import './style.css';

/** Hash routes: `#/` sessions, `#/sessions/{id}`, `#/chat/{id}`. */
function useRoute(): string[] {
  const read = (): string[] => window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = (): void => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

function TokenForm({ onToken }: { onToken: (token: string) => void }) {
  const [value, setValue] = useState('');
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (value.trim() !== '') onToken(value.trim());
  };
  return (
    <form className="card token" onSubmit={submit}>
      <h2>Sign in</h2>
      <p>The console calls the server's API with your bearer token (kept in this tab only).</p>
      <input aria-label="Token" type="password" value={value} onChange={(event) => setValue(event.target.value)} placeholder="Bearer token" autoFocus />
      <button type="submit">Open the console</button>
    </form>
  );
}

function App() {
  const [token, setToken] = useState(readToken);
  const route = useRoute();
  const [page, id] = route;
  return (
    <>
      <header>
        <a href="#/">
          <strong>helix-agents</strong> console
        </a>
        <nav>
          <a href="#/">Sessions</a>
          <a href={`#/chat/${crypto.randomUUID()}`}>New chat</a>
          {token !== null && (
            <button className="link" onClick={() => (saveToken(null), setToken(null))}>
              Sign out
            </button>
          )}
        </nav>
      </header>
      <main>
        {token === null ? (
          <TokenForm onToken={(value) => (saveToken(value), setToken(value))} />
        ) : page === 'sessions' && id !== undefined ? (
          <SessionPage key={id} sessionId={id} />
        ) : page === 'chat' && id !== undefined ? (
          <ChatPage key={id} chatId={id} />
        ) : (
          <SessionsPage />
        )}
      </main>
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
