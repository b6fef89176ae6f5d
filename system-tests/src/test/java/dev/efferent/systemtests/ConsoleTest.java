package dev.efferent.systemtests;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.WaitForSelectorState;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The web console in a real headless Chromium: chat, live workers and tasks, offline queueing. */
class ConsoleTest extends SystemFixture {
    private static final double WAIT_MS = 60_000;

    @Test
    void chatWithTheBrainAndWatchWorkersComeAndGo() throws Exception {
        Launched brain = brain("brain", Map.of());
        Path root = dir.resolve("laptop");
        Files.createDirectories(root);
        Files.writeString(root.resolve("notes.txt"), "buy milk\nwater the plants\n");
        Path shots = Path.of(System.getProperty("efferent.test.screenshots", "target/screenshots"));
        Files.createDirectories(shots);

        try (Browser chromium = new Browser();
             BrowserContext context = chromium.browser.newContext(new com.microsoft.playwright.Browser.NewContextOptions() // qualified: a clash with dev.efferent.systemtests.Browser
                     .setViewportSize(1280, 800))) {
            Page page = context.newPage();
            page.navigate("http://127.0.0.1:" + brain.port() + "/");

            // The brain has an API token: the console asks for it.
            page.locator("#token").fill(TOKEN);
            page.locator("#login-form button").click();
            page.locator("#conn[data-state=open]").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));

            say(page, "/shell echo hi");
            waitForText(page, ".msg.bot", "Your machine is offline. I've queued this task");

            Launched worker = worker("laptop", root, List.of(brain));
            page.locator("[data-worker=laptop][data-online=true]").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            waitForText(page, ".msg.result.ok", "hi");

            say(page, "/read notes.txt");
            waitForText(page, ".msg.result.ok", "water the plants");
            say(page, "/workers");
            waitForText(page, ".msg.bot", "● laptop");
            page.screenshot(new Page.ScreenshotOptions().setPath(shots.resolve("console.png")));

            worker.stop();
            page.locator("[data-worker=laptop][data-online=false]").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            say(page, "/shell echo back again");
            waitForText(page, ".msg.bot", "Your machine is offline. I've queued this task");
            page.locator("[data-status=queued]").first().waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            page.screenshot(new Page.ScreenshotOptions().setPath(shots.resolve("console-offline.png")));

            worker("laptop", root, List.of(brain));
            page.locator("[data-worker=laptop][data-online=true]").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            waitForText(page, ".msg.bot", "Your machine laptop is back.");
            waitForText(page, ".msg.result.ok", "back again");

            // A command's progress is its lines: the bar says it is busy, with no made-up percentage.
            say(page, "/shell for i in 1 2 3 4 5 6; do echo step $i; sleep 0.5; done");
            page.locator(".msg.progress .bar.busy").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            waitForText(page, ".msg.result.ok", "step 6");
            // Icons are drawn by the console, whatever fonts the machine has; long output is folded.
            assertTrue(page.locator(".msg.result.ok svg.icon.ok").count() > 0, "a drawn icon for a success");
            say(page, "/shell seq 1 300");
            page.locator(".msg.result.ok button.show-all").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            Locator folded = page.locator(".msg.result.ok").last();
            assertTrue(folded.innerText().contains("Show all"), folded.innerText());
            assertTrue(!folded.innerText().contains("\n300\n") && !folded.innerText().endsWith("300"),
                    "folded: " + folded.innerText());
            page.screenshot(new Page.ScreenshotOptions().setPath(shots.resolve("console-folded.png")));
            folded.locator("button.show-all").click();
            assertTrue(folded.innerText().contains("\n300"), "shown whole after the click");

            // A task opens in a view of its own: the whole output, searchable, and what is known about the run.
            page.locator("#tasks li[data-status=completed]").filter(new Locator.FilterOptions().setHasText("run_shell"))
                    .first().click();
            Locator view = page.locator("[data-testid=task-view]");
            view.waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            waitForText(page, "[data-testid=task-output]", "300");
            assertTrue(view.locator("[data-testid=task-facts]").innerText().contains("laptop"),
                    view.locator("[data-testid=task-facts]").innerText());
            view.locator("[data-testid=task-search]").fill("29");
            waitForText(page, "[data-testid=task-matches]", "13 of ");
            assertEquals(13, view.locator("[data-testid=task-output] mark").count());
            page.screenshot(new Page.ScreenshotOptions().setPath(shots.resolve("console-task.png")));
            view.locator("[data-testid=task-close]").click();

            // A running one: its progress (lines so far, seconds), live; cancelled from the view; run again.
            say(page, "/shell for i in $(seq 1 100); do echo tick $i; sleep 0.3; done");
            Locator running = page.locator("#tasks li[data-status=running]").first();
            running.waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            running.click();
            page.locator("[data-testid=task-progress]").filter(new Locator.FilterOptions()
                    .setHasText(Pattern.compile("\\d+ lines, \\d+ s: tick \\d+"))).waitFor(
                    new Locator.WaitForOptions().setTimeout(WAIT_MS));
            view.locator("[data-testid=task-cancel]").click();
            waitForText(page, "[data-testid=task-status]", "cancelled");
            view.locator("[data-testid=task-retry]").click();
            assertTrue(view.isHidden(), "the view closes when the task is run again");
            waitForText(page, ".msg.me", "/run run_shell {\"command\":\"for i in");
            page.locator("#tasks li[data-status=running]").first().waitFor(new Locator.WaitForOptions()
                    .setTimeout(WAIT_MS));
            say(page, "/cancel " + page.locator("#tasks li[data-status=running]").first().getAttribute("data-task-id"));
            waitForText(page, ".msg.bot", "Cancelled task");

            page.setViewportSize(390, 844);
            page.screenshot(new Page.ScreenshotOptions().setPath(shots.resolve("console-phone.png")).setFullPage(true));
        }
        assertTrue(Files.size(shots.resolve("console.png")) > 10_000);
    }

    @Test
    void aPageFromAnotherSiteCannotDriveTheBrainAndTheConsoleRunsUnderItsCsp() throws Exception {
        Launched brain = brain("brain", Map.of());
        String brainUrl = "http://127.0.0.1:" + brain.port();
        Path pwned = dir.resolve("pwned");
        // What a malicious page in the user's browser would try: a "simple" POST that needs no preflight, a form
        // post, and the console's WebSocket. It reports what it saw into its own page.
        byte[] evil = ("""
                <!doctype html><title>cats</title><pre id=out></pre>
                <form id=f method=post action="BRAIN/api/v1/tasks" enctype="text/plain" target=sink>
                <input name='{"tool":"run_shell","params":{"command":"touch PWNED"},"x":"' value='"}'></form>
                <iframe name=sink></iframe>
                <script>
                const out = (t) => document.getElementById('out').textContent += t + '\\n';
                fetch('BRAIN/api/v1/tasks', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
                      body: '{"tool":"run_shell","params":{"command":"touch PWNED"}}'}).then(() => out('fetch sent'));
                document.getElementById('f').submit();
                const ws = new WebSocket('BRAIN'.replace('http', 'ws') + '/ws/console');
                ws.onopen = () => out('socket open');
                ws.onerror = () => out('socket refused');
                </script>""").replace("BRAIN", brainUrl).replace("PWNED", pwned.toString())
                .getBytes(StandardCharsets.UTF_8);
        HttpServer site = HttpServer.create(
                new InetSocketAddress("127.0.0.1", 0), 0);
        site.createContext("/", ex -> {
            ex.getResponseHeaders().add("Content-Type", "text/html");
            ex.sendResponseHeaders(200, evil.length);
            ex.getResponseBody().write(evil);
            ex.close();
        });
        site.start();
        List<String> violations = new CopyOnWriteArrayList<>();
        try (Browser chromium = new Browser();
             BrowserContext context = chromium.browser.newContext()) {
            Page attack = context.newPage();
            attack.navigate("http://localhost:" + site.getAddress().getPort() + "/");
            attack.locator("#out").filter(new Locator.FilterOptions().setHasText("socket refused"))
                    .waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            assertFalse(attack.locator("#out").textContent().contains("socket open"), attack.content());

            // The console, opened with the link the brain logs (token in the fragment), works under its CSP.
            Page page = context.newPage();
            page.onConsoleMessage(m -> {
                if (m.text().contains("Content Security Policy")) {
                    violations.add(m.text());
                }
            });
            page.navigate(brainUrl + "/#token=" + TOKEN);
            page.locator("#conn[data-state=open]").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            assertTrue(page.url().endsWith("/"), "the token is taken out of the address bar: " + page.url());
            say(page, "/help");
            waitForText(page, ".msg.bot", "/shell");
        } finally {
            site.stop(0);
        }
        assertTrue(violations.isEmpty(), violations.toString());
        assertFalse(Files.exists(pwned), "a cross-site page ran a command");
        assertEquals(0, call(brain, "GET", "/api/v1/tasks", null, 200).path("tasks").size());
    }

    @Test
    void aReloadedConsoleKeepsItsConversation() throws Exception {
        Launched brain = brain("brain", Map.of());
        try (Browser chromium = new Browser();
             BrowserContext context = chromium.browser.newContext()) {
            Page page = context.newPage();
            page.navigate("http://127.0.0.1:" + brain.port() + "/#token=" + TOKEN);
            page.locator("#conn[data-state=open]").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            say(page, "/help");
            waitForText(page, ".msg.bot", "/shell");

            page.reload();
            page.locator("#conn[data-state=open]").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            waitForText(page, ".msg.me", "/help");
            waitForText(page, ".msg.bot", "/shell");
            assertEquals(2, page.locator(".msg").count(), "what was said, once each");
        }
    }

    @Test
    void aMachineIsPairedAndRevokedFromTheConsole() throws Exception {
        Launched brain = brain("brain", Map.of("EFFERENT_WORKER_SECRET", ""));
        Path shots = Path.of(System.getProperty("efferent.test.screenshots", "target/screenshots"));
        Files.createDirectories(shots);
        try (Browser chromium = new Browser();
             BrowserContext context = chromium.browser.newContext(new com.microsoft.playwright.Browser.NewContextOptions() // qualified: a clash with dev.efferent.systemtests.Browser
                     .setViewportSize(1280, 800))) {
            Page page = context.newPage();
            page.navigate("http://127.0.0.1:" + brain.port() + "/#token=" + TOKEN);
            page.locator("#conn[data-state=open]").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            page.locator("[data-testid=pair]").click();
            waitForText(page, ".msg.bot", "Pairing code:");
            String shown = page.locator(".msg.bot").filter(new Locator.FilterOptions().setHasText("Pairing code:"))
                    .first().innerText();
            Matcher code = Pattern.compile("--pair (\\S{5}-\\S{5})").matcher(shown);
            assertTrue(code.find(), shown);

            worker("laptop", dir.resolve("laptop"), List.of(brain), List.of(), Map.of("EFFERENT_WORKER_SECRET", ""),
                    "--pair", code.group(1));
            Locator laptop = page.locator("[data-worker=laptop][data-online=true]");
            laptop.waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            page.screenshot(new Page.ScreenshotOptions().setPath(shots.resolve("console-pairing.png")));

            page.onDialog(dialog -> dialog.accept());
            laptop.locator("[data-testid=revoke]").click();
            waitForText(page, ".msg.bot", "Revoked the token of laptop; it was disconnected.");
            page.locator("[data-worker=laptop][data-online=false]").waitFor(new Locator.WaitForOptions()
                    .setTimeout(WAIT_MS));
        }
    }

    private static void say(Page page, String text) {
        page.locator("[data-testid=chat-input]").fill(text);
        page.locator("[data-testid=send]").click();
    }

    private static void waitForText(Page page, String selector, String text) {
        page.locator(selector).filter(new Locator.FilterOptions().setHasText(text)).first()
                .waitFor(new Locator.WaitForOptions().setState(WaitForSelectorState.VISIBLE).setTimeout(WAIT_MS));
    }
}
