"""The catalogs: same keys and placeholders in Turkish and English; language resolution."""

from __future__ import annotations

import string

from bot.text.i18n import catalog, catalog_files, language_from_locale, resolve_language, t


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_catalogs_have_the_same_keys_and_placeholders() -> None:
    english, turkish = catalog("en"), catalog("tr")
    assert set(english) == set(turkish)
    for key in english:
        assert placeholders(english[key]) == placeholders(turkish[key]), key
        assert english[key] != "" and turkish[key] != ""


def test_every_key_used_in_code_exists() -> None:
    import re
    from pathlib import Path

    root = Path(__file__).parents[3]
    used = set()
    for path in [*root.joinpath("bot").rglob("*.py"), *root.joinpath("adapters").rglob("*.py")]:
        used |= set(re.findall(r'\bt\([^,()]+,\s*"([a-z_]+\.[a-z_.0-9]+)"', path.read_text(encoding="utf-8")))
    assert used, "the scan found no keys: the pattern is broken"
    assert used - set(catalog("en")) == set()


def test_a_key_lives_in_one_file_and_both_languages_have_the_same_files() -> None:
    assert set(catalog_files("en")) == set(catalog_files("tr"))
    for language in ("en", "tr"):
        seen: dict[str, str] = {}
        for name, keys in catalog_files(language).items():
            for key in keys:
                assert key not in seen, f"{language}: {key} in both {seen[key]} and {name}"
                seen[key] = name


def test_lookup_fills_placeholders_and_falls_back() -> None:
    assert t("tr", "answer.right", letter="B") == "✅ Doğru: B."
    assert t("de", "answer.right", letter="B") == "✅ Right: B."
    assert t("en", "no.such.key") == "no.such.key"


def test_language_resolution_order() -> None:
    assert language_from_locale("tr-TR") == "tr" and language_from_locale("en_GB.UTF-8") == "en"
    assert language_from_locale("de") is None and language_from_locale(None) is None
    assert resolve_language(user="en", chat="tr", locale="tr") == "en"
    assert resolve_language(chat="tr", locale="en") == "tr"
    assert resolve_language(locale="tr-TR") == "tr"
    assert resolve_language(locale="fr", default="en") == "en"
