package dev.efferent.systemtests;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.WaitForSelectorState;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

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
             BrowserContext context = chromium.browser.newContext(new com.microsoft.playwright.Browser.NewContextOptions()
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

            page.setViewportSize(390, 844);
            page.screenshot(new Page.ScreenshotOptions().setPath(shots.resolve("console-phone.png")).setFullPage(true));
        }
        assertTrue(Files.size(shots.resolve("console.png")) > 10_000);
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
