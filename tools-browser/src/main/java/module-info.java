/**
 * Browser tools: Playwright for Java driving the machine's own Chromium, one browser per process and one
 * context (cookies, logins) per conversation.
 *
 * @provides dev.efferent.tools.spi.ToolkitProvider
 */
module efferent.tools.browser {
    requires efferent.tools.spi;
    requires playwright;
    // Playwright is an automatic module that declares nothing; these are what it needs at run time.
    requires com.google.gson;
    requires jdk.unsupported;

    provides dev.efferent.tools.spi.ToolkitProvider
            with dev.efferent.tools.browser.BrowserToolkitProvider;
}
