package dev.efferent.tools.browser;

import com.google.gson.Gson;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.TimeoutError;
import com.microsoft.playwright.options.WaitForSelectorState;
import dev.efferent.tools.spi.Content;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;
import dev.efferent.tools.spi.Toolkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

/** The browser tools, sharing one {@link BrowserSessions}. */
final class BrowserToolkit implements Toolkit {
    private static final ToolHints LOOKS = new ToolHints(true, false, true, true);
    private static final ToolHints ACTS = new ToolHints(false, false, false, true);
    private static final String TARGET = """
            "selector": {"type": "string", "minLength": 1, "description": "CSS selector, e.g. #login or button.primary"},
            "text": {"type": "string", "minLength": 1, "description": "Visible text of the element, instead of a selector"}""";

    private final BrowserSettings settings;
    private final BrowserSessions sessions;
    private final List<Tool> tools;

    BrowserToolkit(BrowserSettings settings) {
        this.settings = settings;
        this.sessions = new BrowserSessions(settings);
        this.tools = List.of(
                tool("browser_navigate", "Open a URL in this conversation's browser tab; returns the final URL and title.",
                        "\"url\": {\"type\": \"string\", \"minLength\": 1}", "[\"url\"]",
                        new ToolHints(false, false, true, true), this::navigate),
                tool("browser_click", "Click an element, found by CSS selector or by its visible text.", TARGET, "[]",
                        ACTS, this::click),
                tool("browser_type", "Type text into a field (replacing what is there); submit presses Enter after.",
                        """
                        "selector": {"type": "string", "minLength": 1},
                        "text": {"type": "string"},
                        "submit": {"type": "boolean", "default": false}""", "[\"selector\", \"text\"]", ACTS, this::type),
                tool("browser_press", "Press a key or chord on the page, e.g. Enter, Escape, Control+A.",
                        "\"key\": {\"type\": \"string\", \"minLength\": 1}", "[\"key\"]",
                        ACTS, this::press),
                tool("browser_text", "The visible text of the page, or of one element; long text is cut with a marker.",
                        "\"selector\": {\"type\": \"string\", \"minLength\": 1}", "[]", LOOKS, this::text),
                tool("browser_screenshot", "A PNG screenshot of the page (the whole page with fullPage), returned as an "
                                + "image and saved on this machine.",
                        "\"fullPage\": {\"type\": \"boolean\", \"default\": false}", "[]", LOOKS, this::screenshot),
                tool("browser_wait", "Wait until an element (by selector or visible text) is visible.", TARGET + """
                        ,
                        "timeout": {"type": "integer", "minimum": 1, "maximum": 300000, "description": "Milliseconds, default 10000"}""",
                        "[]", LOOKS, this::waitFor),
                tool("browser_eval", "Run JavaScript in the page and return its result as JSON. It can do anything the "
                                + "page can, including with your logged-in sessions.",
                        "\"script\": {\"type\": \"string\", \"minLength\": 1}", "[\"script\"]",
                        new ToolHints(false, true, false, true), this::eval));
    }

    @Override
    public String name() {
        return "browser";
    }

    @Override
    public List<Tool> tools() {
        return tools;
    }

    @Override
    public void close() {
        sessions.close();
    }

    private Tool tool(String name, String description, String properties, String required, ToolHints hints,
                      BiFunction<ToolParams, ToolContext, ToolResult> body) {
        return Tool.of(ToolSpec.local(name, description, "{\"type\": \"object\", \"properties\": {"
                + properties.strip() + "}, \"required\": " + required + ", \"additionalProperties\": false}", hints), body);
    }

    private ToolResult navigate(ToolParams p, ToolContext c) {
        String url = p.string("url");
        // Only the web: a file: URL would read any file this user can (~/.ssh too), past the allowed roots and
        // the hidden paths that bind every other tool.
        String scheme = url.contains(":") ? url.substring(0, url.indexOf(':')).toLowerCase(Locale.ROOT) : "";
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new ToolException("browser_navigate opens http and https URLs only, got '" + url + "'; read files "
                    + "with read_file");
        }
        return sessions.withPage(c, page -> {
            try {
                page.navigate(url);
            } catch (PlaywrightException e) {
                throw new ToolException("could not open " + url + ": " + BrowserSessions.firstLine(e.getMessage()));
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("url", page.url());
            out.put("title", page.title());
            return ToolResult.of("Opened " + page.url() + (page.title().isEmpty() ? "" : " — " + page.title()), out);
        });
    }

    private ToolResult click(ToolParams p, ToolContext c) {
        return sessions.withPage(c, page -> {
            Locator target = target(page, p);
            act(page, p, settings.actionTimeout().toMillis(), () -> target.click());
            return ToolResult.of("Clicked " + describe(p) + "; now at " + page.url(), Map.of("url", page.url()));
        });
    }

    private ToolResult type(ToolParams p, ToolContext c) {
        return sessions.withPage(c, page -> {
            Locator field = page.locator(p.string("selector")).first();
            act(page, p, settings.actionTimeout().toMillis(), () -> field.fill(p.string("text")));
            if (p.bool("submit", false)) {
                field.press("Enter");
                page.waitForLoadState();
            }
            return ToolResult.of("Typed into " + describe(p) + (p.bool("submit", false) ? " and submitted; now at "
                    + page.url() : ""), Map.of("url", page.url()));
        });
    }

    private ToolResult press(ToolParams p, ToolContext c) {
        return sessions.withPage(c, page -> {
            try {
                page.keyboard().press(p.string("key"));
            } catch (PlaywrightException e) {
                throw new ToolException("could not press '" + p.string("key") + "': "
                        + BrowserSessions.firstLine(e.getMessage()));
            }
            return ToolResult.text("Pressed " + p.string("key"));
        });
    }

    private ToolResult text(ToolParams p, ToolContext c) {
        return sessions.withPage(c, page -> {
            String text;
            if (p.optionalString("selector").isPresent()) {
                Locator element = page.locator(p.string("selector")).first();
                String[] holder = new String[1];
                act(page, p, settings.actionTimeout().toMillis(), () -> holder[0] = element.innerText());
                text = holder[0];
            } else {
                text = page.innerText("body");
            }
            int max = settings.maxTextChars();
            String shown = text.length() <= max ? text : text.substring(0, max) + "\n[… truncated: "
                    + (text.length() - max) + " more characters]";
            return ToolResult.of(shown, Map.of("url", page.url(), "length", text.length(), "truncated", text.length() > max));
        });
    }

    private ToolResult screenshot(ToolParams p, ToolContext c) {
        byte[] png = sessions.withPage(c, page -> page.screenshot(new Page.ScreenshotOptions()
                .setFullPage(p.bool("fullPage", false))));
        Path file = settings.screenshotsDir().resolve(c.taskId().replaceAll("[^A-Za-z0-9._-]", "_") + ".png");
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, png);
        } catch (IOException e) {
            throw new ToolException("took the screenshot but could not save it to " + file + ": " + e.getMessage());
        }
        return new ToolResult(List.of(new Content.Text("Screenshot saved to " + file + " (" + png.length + " bytes)"),
                new Content.Image("image/png", Base64.getEncoder().encodeToString(png))),
                Map.of("path", file.toString(), "bytes", png.length), false);
    }

    private ToolResult waitFor(ToolParams p, ToolContext c) {
        long timeout = p.integer("timeout", settings.actionTimeout().toMillis());
        return sessions.withPage(c, page -> {
            Locator target = target(page, p);
            act(page, p, timeout, () -> target.waitFor(new Locator.WaitForOptions()
                    .setState(WaitForSelectorState.VISIBLE).setTimeout(timeout)));
            return ToolResult.text(describe(p) + " is visible on " + page.url());
        });
    }

    private ToolResult eval(ToolParams p, ToolContext c) {
        return sessions.withPage(c, page -> {
            Object result;
            try {
                result = page.evaluate(p.string("script"));
            } catch (PlaywrightException e) {
                throw new ToolException("the script failed on " + page.url() + ": "
                        + BrowserSessions.firstLine(e.getMessage()));
            }
            return ToolResult.text(new Gson().toJson(result));
        });
    }

    private static Locator target(Page page, ToolParams p) {
        if (p.optionalString("selector").isPresent()) {
            return page.locator(p.string("selector")).first();
        }
        if (p.optionalString("text").isPresent()) {
            return page.getByText(p.string("text")).first();
        }
        throw new ToolException("give a selector (CSS) or the element's visible text");
    }

    /** Runs an element action, turning Playwright's timeout into a message with the selector, URL and wait. */
    private static void act(Page page, ToolParams p, long timeoutMs, Runnable action) {
        try {
            action.run();
        } catch (TimeoutError e) {
            throw new ToolException("no element matches " + describe(p) + " on " + page.url() + " (waited "
                    + timeoutMs + " ms)");
        } catch (PlaywrightException e) {
            throw new ToolException("could not use " + describe(p) + " on " + page.url() + ": "
                    + BrowserSessions.firstLine(e.getMessage()));
        }
    }

    private static String describe(ToolParams p) {
        return p.optionalString("selector").map(s -> "selector '" + s + "'")
                .orElseGet(() -> "text '" + p.string("text", "") + "'");
    }
}
