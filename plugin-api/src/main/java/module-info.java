/**
 * What every Efferent plugin SPI shares: {@link dev.efferent.plugin.Settings}, a plugin's view of its configuration,
 * with one grammar for numbers, switches, lists and durations, and {@link dev.efferent.plugin.SettingsException}
 * for a value that does not parse, and {@link dev.efferent.plugin.Ids} for new ids. JDK only.
 */
module efferent.plugin.api {
    exports dev.efferent.plugin;
}
