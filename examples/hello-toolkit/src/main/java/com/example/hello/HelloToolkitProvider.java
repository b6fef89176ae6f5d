package com.example.hello;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;

import java.util.List;

/** The hello toolkit: one tool that greets someone, with a greeting from {@code tools.hello.greeting}. */
public final class HelloToolkitProvider implements ToolkitProvider {

    /** For ServiceLoader: does no work. */
    public HelloToolkitProvider() {
    }

    @Override
    public String name() {
        return "hello";
    }

    @Override
    public Toolkit create(Settings settings) {
        String greeting = settings.get("greeting").orElse("Hello");
        ToolSpec spec = ToolSpec.local("hello", "Greets someone by name.", """
                {"type": "object",
                 "properties": {"name": {"type": "string", "minLength": 1}},
                 "required": ["name"],
                 "additionalProperties": false}
                """, ToolHints.READ_ONLY);
        Tool hello = new Tool() {
            @Override
            public ToolSpec spec() {
                return spec;
            }

            @Override
            public ToolResult call(ToolParams params, ToolContext context) {
                return ToolResult.text(greeting + ", " + params.string("name") + "!");
            }
        };
        return new Toolkit() {
            @Override
            public String name() {
                return "hello";
            }

            @Override
            public List<Tool> tools() {
                return List.of(hello);
            }
        };
    }
}
