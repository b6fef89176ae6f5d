package dev.efferent.tools.browser;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.PlaywrightException;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * One browser per process, started on first use, with one context (cookies, storage, one page) per session:
 * a conversation keeps its logins, and conversations never see each other's. Playwright objects are not
 * thread-safe, so every browser operation runs on this class's one thread. Idle contexts, and then the
 * browser, are closed after the idle timeout.
 */
final class BrowserSessions implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(BrowserSessions.class.getName());

    private final BrowserSettings settings;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-browser").daemon().factory());
    private final Map<String, Session> sessions = new HashMap<>();
    private Playwright playwright;
    private Browser browser;
    private Instant lastUsed = Instant.now();

    private record Session(BrowserContext context, Page page, Instant[] lastUsed) {
    }

    BrowserSessions(BrowserSettings settings) {
        this.settings = settings;
        long sweep = Math.max(1, Math.min(60, settings.idleTimeout().toSeconds() / 2));
        thread.scheduleWithFixedDelay(this::closeIdle, sweep, sweep, TimeUnit.SECONDS);
    }

    /** Runs {@code action} with the session's page on the browser thread, within the task's time. */
    <T> T withPage(ToolContext context, Function<Page, T> action) {
        String key = context.session().isEmpty() ? "default" : context.session();
        Future<T> future = thread.submit(() -> action.apply(page(key)));
        context.onCancel(() -> future.cancel(true));
        try {
            return future.get(Math.max(1, context.remaining().toMillis()), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new ToolException("the browser did not finish within the task's time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolException("cancelled while the browser was working");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ToolException t) {
                throw t;
            }
            if (e.getCause() instanceof PlaywrightException p) {
                throw new ToolException("the browser failed: " + firstLine(p.getMessage()));
            }
            throw new ToolException("the browser failed: " + e.getCause());
        } catch (CancellationException e) {
            throw new ToolException("cancelled while the browser was working");
        }
    }

    /** Number of open sessions (for tests and logs). */
    int openSessions() {
        try {
            return thread.submit(sessions::size).get();
        } catch (InterruptedException | ExecutionException e) {
            return -1;
        }
    }

    private Page page(String key) {
        lastUsed = Instant.now();
        Session s = sessions.get(key);
        if (s == null || s.page().isClosed()) {
            if (s != null) {
                s.context().close();
            }
            BrowserContext context = browser().newContext();
            context.setDefaultTimeout(settings.actionTimeout().toMillis());
            context.setDefaultNavigationTimeout(30_000);
            s = new Session(context, context.newPage(), new Instant[]{Instant.now()});
            sessions.put(key, s);
            LOG.log(Level.DEBUG, "New browser context for session {0}", key);
        }
        s.lastUsed()[0] = Instant.now();
        return s.page();
    }

    private Browser browser() {
        if (browser != null && browser.isConnected()) {
            return browser;
        }
        Path chromium = settings.executable().map(Installed::chromium).orElseGet(Installed::chromium);
        Optional<Path> node = settings.node().map(Installed::node).or(Installed::node);
        // Neither the driver nor Chromium inherits the worker's environment and its secrets (BrowserEnvironment).
        Map<String, String> env = BrowserEnvironment.forDriver(System.getenv());
        env.put("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
        node.ifPresent(n -> env.put("PLAYWRIGHT_NODEJS_PATH", n.toString()));
        long start = System.nanoTime();
        try {
            playwright = Playwright.create(new Playwright.CreateOptions().setEnv(env));
            browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                    .setExecutablePath(chromium)
                    .setHeadless(settings.headless())
                    .setEnv(BrowserEnvironment.passed(System.getenv()))
                    .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                            "--disable-component-update", "--no-first-run", "--disable-sync")));
        } catch (PlaywrightException e) {
            closeBrowser();
            throw new ToolException("could not start Chromium at " + chromium + ": " + firstLine(e.getMessage()));
        }
        LOG.log(Level.INFO, "Started {0} ({1}) in {2} ms with Node {3}", chromium, settings.headless() ? "headless" : "headed",
                String.valueOf(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)),
                node.map(Path::toString).orElse("from Playwright's bundle"));
        return browser;
    }

    private void closeIdle() {
        Instant now = Instant.now();
        for (Iterator<Map.Entry<String, Session>> it = sessions.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Session> e = it.next();
            if (Duration.between(e.getValue().lastUsed()[0], now).compareTo(settings.idleTimeout()) >= 0) {
                closeQuietly(e.getValue().context());
                it.remove();
                LOG.log(Level.DEBUG, "Closed the idle browser context of session {0}", e.getKey());
            }
        }
        if (sessions.isEmpty() && browser != null
                && Duration.between(lastUsed, now).compareTo(settings.idleTimeout()) >= 0) {
            closeBrowser();
            LOG.log(Level.INFO, "Closed the idle browser");
        }
    }

    private void closeBrowser() {
        sessions.values().forEach(s -> closeQuietly(s.context()));
        sessions.clear();
        if (browser != null) {
            try {
                browser.close();
            } catch (PlaywrightException e) {
                LOG.log(Level.DEBUG, "Browser close: {0}", e.getMessage());
            }
            browser = null;
        }
        if (playwright != null) {
            try {
                playwright.close();
            } catch (PlaywrightException e) {
                LOG.log(Level.DEBUG, "Playwright close: {0}", e.getMessage());
            }
            playwright = null;
        }
    }

    private static void closeQuietly(BrowserContext context) {
        try {
            context.close();
        } catch (PlaywrightException e) {
            LOG.log(Level.DEBUG, "Context close: {0}", e.getMessage());
        }
    }

    /** The useful line of a Playwright error: its {@code message='…'} when it has one, else its first line. */
    static String firstLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        int at = message.indexOf("message='");
        String line = at >= 0 ? message.substring(at + 9).lines().findFirst().orElse("").strip()
                : message.strip().lines().findFirst().orElse(message);
        return line.length() > 300 ? line.substring(0, 300) + "…" : line;
    }

    @Override
    public void close() {
        try {
            thread.submit(this::closeBrowser).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(Level.WARNING, "The browser did not close cleanly: {0}", e.getMessage());
        }
        thread.shutdownNow();
    }
}
