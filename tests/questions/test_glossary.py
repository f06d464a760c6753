"""The Turkish texts of the shipped bank use the glossary's forms (questions/GLOSSARY.md)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.bank.loader import check_bank

BANK = Path(__file__).parents[2] / "questions"

# Case-sensitive on purpose: under re.IGNORECASE Python matches "ı" with "i", so rank'ın would catch rank'in.
FORBIDDEN: dict[str, str] = {
    r"\b[Tt]ek[- ]sıcak": "one-hot",
    r"\b[Kk]osinüs tavlama": "cosine annealing",
    r"\b[Ii]ndirgen": "reduce edilir / toplanır",
    r"\b[Kk]urucu": "yapıcı",
    r"\b[Bb]atch iş\b": "batch işi",
    r"\brank'(a|ta|tan|ın|ı|lı|taki|ına|ında)\b": "rank'e, rank'te, rank'in, rank'i, rank'li",
    # a decimal point in prose; 1.500 and 12.000 are Turkish thousands and pass
    r"(?<![\w.,`])(?:0\.\d+|\d+\.(?!\d{3}(?!\d))\d+)(?![\w.])": "a decimal comma (0,5) outside code",
    r"\b[Öö]ğrenme hızı": "öğrenme oranı",
    r"\b[Aa]şırı uydurma": "aşırı öğrenme",
    r"\b[Vv]eri kaçağı": "veri sızıntısı",
    # round 3 (issue 25): the writers' rows, merged and checked against the whole bank
    r"\b[Kk]esim terimi": "sabit terim",
    r"\b[Ss]ıfıra taş": "alttan taşma",
    r"\b[Iı]sı(sı|yı|ya|da|nın)?\b(?! harita)": "sıcaklık (ısı haritası, a heatmap, stays)",
    r"\b[Ee]vrişim": "konvolüsyon",
    r"\b[Nn]icem|\b[Nn]icele|\b[Kk]uantala": "kuantizasyon, kuantize etmek",
    r"\b[Qq]uantize (et|ed)": "kuantize etmek",
    r"\b[Öö]rnekleyici|\b[Öö]rnekçi": "sampler",
    r"\b[Nn]umune": "örnekleme",
    r"\b[Tt]abakal|\b[Kk]atmanlam|\b[Kk]atmanlı örnek": "stratify etmek, stratified",
    r"\b[Tt]aban oran|\b[Yy]aygınlık oran": "temel oran, prevalans",
    r"\b[Öö]ncül(lü| dağılım| olasılık)|\b[Aa]rdıl": "önsel / sonsal",
    r"\b[Bb]enzerlik oran": "olabilirlik oranı",
    r"\b[Bb]ahis oran": "oran (odds)",
    r"\b[Kk]onjuge": "eşlenik",
    r"\b[Yy]ükümlülük|\b[Bb]eklenti adımı|\b[Mm]aksimizasyon adımı": "sorumluluk, E-adımı, M-adımı",
    r"\b[Gg]auss prosesi|\b[Uu]zunluk skala": "Gauss süreci, uzunluk ölçeği",
    r"\b[Dd]üzgünleştirme|\b[Yy]apay sayı": "Laplace yumuşatması, sahte sayım",
    r"\b[Yy]eniden\s+yapılandır|\b[Rr]ekonstrüksiyon": "yeniden oluşturma",
    r"\b[Ss]apan değer|\b[Çç]öküş noktası": "aykırı değer, kırılma noktası",
    r"\b[Mm]ahalanobis mesafe|\b[Dd]estekçi vektör": "Mahalanobis uzaklığı, destek vektörü",
    r"\b(KL|JS) sapma": "ıraksama",
    r"\b[Pp]ersentil": "yüzdelik",
    r"\b[Yy]üzde nokta": "yüzde puan",
    r"\b[İi]statistiksel kuvvet|\b[Tt]estin kuvveti": "güç",
    r"\b[Ss]ahte keşif|\b[Aa]ilesel hata": "yanlış keşif oranı, aile bazındaki hata oranı",
    r"\b[Öö]rnek oranı uyuş": "örneklem oranı uyumsuzluğu",
    r"\b[Tt]edavi (grub|kol)": "treatment kolu",
    r"\b[Gg]özetle|\b[Dd]ikizle": "ara sonuçlara bakma (peeking)",
    r"\b[Aa]cayiplik etki|\b[Aa]şağı olmama": "yenilik etkisi, daha kötü olmama testi",
    r"\b[Ss]ınıf dengesizlili|\b[Ss]ınıf orantısızlı": "sınıf dengesizliği",
    r"\b[Çç]oklu atama": "çoklu doldurma",
    r"\b[Kk]ayıp bayrağı|\b[Tt]am vaka": "eksiklik göstergesi, eksiksiz satır analizi",
    r"\b[Rr]asgele": "rastgele",
    r"\b[Dd]eduplikasyon|\b[Kk]opya ayıkla": "tekilleştirme",
    r"\b[Ee]tkinlik zaman|\b[İi]şlem zaman": "olay zamanı, işlenme zamanı",
    r"\b[Gg]eç varan|\b[Gg]ecikmiş veri": "geç gelen veri",
    r"\b[Ee]tiket parazit|\b[İi]şaretleyici|\b[Aa]notatör": "etiket gürültüsü, etiketleyici",
    r"\b[Vv]eri sürüm": "veri versiyonu",
    r"\b[Tt]uzlu hash": "tuzlanmış hash",
    r"\b[Ee]skimişlik|\b[Bb]ayatlama": "bayatlık",
    r"\b[Öö]ğrenilme zaman": "bilinme zamanı",
    r"\b[Vv]arlık anahtar|\b[Öö]ğe anahtar": "entity anahtarı",
    r"\b[İi]stem(i|in|ine|ini|iyle|inde|e|de|den|deki|le|li|ler\w*)?\b": "prompt (prompt'u, prompt'lar)",
    r"\b[Iı]skala|\b[Öö]nbellek isabet|\b[İi]sabet oran|\bcache isabet|\bcache'e isabet": "hit, miss (for a cache)",
    r"\b[Tt]ekdüze (rastgele|dağılım|sınır)": "düzgün (uniform)",
    r"\b[Ss]ırt noktası": "ridge point (dirsek noktası)",
    r"\b[Mm]atris ayrıştır|\b[Mm]atris çarpanlar|\b[Ss]aklı faktör|\b[Gg]izli faktör": "matris faktorizasyonu, gizil faktör",
    r"\b[Dd]olaylı geri bildirim|\b[Kk]apalı geri bildirim|\b[Gg]eribildirim": "örtük geri bildirim, geri besleme döngüsü",
    r"\b[Öö]nyargı": "yanlılık",
    r"\b[İi]skonto": "indirim",
    r"\b[Aa]laka düzey": "ilgililik",
    r"\b[İi]stikşaf|\b[Hh]ırslı": "keşif, açgözlü",
    r"\b[Kk]atalogu|\b[Kk]atalogun": "kataloğu, kataloğun",
    r"\b[Yy]ığın içi|\b[Tt]ekrar sıralayıcı|\b[Kk]enar payı": "batch içi, re-ranker, marj",
    r"\b[Kk]ısmi bağımlılık çizim|\b[Yy]erleşik yöntem|\b[Kk]anıt ağırlığı": "kısmi bağımlılık grafiği, gömülü yöntem, WoE",
    r"\b[Öö]dül ağı|\b[Mm]ükafat|\b[Ff]elaket unutma|\b[Yy]ıkıcı unutma": "ödül modeli, katastrofik unutma",
    r"\b[Jj]eton|\b[Ee]ksper\b": "token, uzman",
    r"\b[Aa]ritmetik yoğunlaşma|\b[Hh]esap şiddeti|\b[Bb]elleğe bağlı|\b[Hh]afıza sınırlı": "aritmetik yoğunluk, bellek sınırlı",
    r"\b[İi]şgal|\b[Mm]eşguliyet oran": "doluluk (occupancy)",
    r"\b[Bb]anka (çakışma|çatışma)|\b[Ww]arp (sapma|dağılma)|\b[Yy]azmaç": "bank çakışması, warp ayrışması, register",
    r"\b[Kk]aynaştır|\b[Ee]ritme|\b[Tt]ekrar derlen|\b[Kk]ompilasyon": "fusion, yeniden derleme",
    r"\b[Kk]anarya|\b[Gg]ölge (dağıtım|mod)": "canary, shadow modu",
    r"\b[Gg]eri sar|\b[Gg]eri yuvarla": "geri alma, checkpoint'e dönmek",
    r"\b[Yy]anma (oranı|hızı)": "burn rate",
    r"\b[Ss]ürüklenme": "drift",
    r"\b[Ee]tiket gecikimi|\b[Ee]tiket rötar|\b[Ss]ahte alarm": "etiket gecikmesi, yanlış alarm",
    r"\b[Vv]eri (çoğaltma|büyütme)": "veri artırma",
    r"\b[Oo]bje algıla|\b[Nn]esne algılayıcı|\b[Ss]ınır kutusu|\b[Yy]er gerçeği|\b[Zz]emin gerçeği": "nesne tespiti, kutu, gerçek kutu",
    r"\b[Aa]şağı örnekle|\b[Öö]teleme eşvaryans": "alt örnekleme, kaydırma eşdeğişkenliği",
    r"\b[Pp]ozisyon gömme|\b[Kk]onumsal gömme": "konum embedding'i",
    r"\b[Yy]eniden parametreleme numara|\b[Gg]ürültü (çizelgesi|programı)|\b[Dd]oymamış": "yeniden parametrelendirme hilesi, gürültü takvimi, doymayan",
}

_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


def _prose(text: str) -> str:
    """The text without code blocks and inline code, which keep their own notation."""
    return _CODE.sub(" ", text)


def _turkish_texts() -> list[tuple[str, str]]:
    bank, problems = check_bank([BANK])
    assert not problems
    texts: list[tuple[str, str]] = []
    for question in bank.questions.values():
        texts.append((f"{question.id} stem", question.text.get("tr", "")))
        texts.append((f"{question.id} explanation", question.explanation.get("tr", "")))
        texts += [(f"{question.id} option {i + 1}", o.texts.get("tr", "")) for i, o in enumerate(question.options)]
    return texts


def test_turkish_texts_use_the_glossary_forms() -> None:
    found = []
    for where, text in _turkish_texts():
        prose = _prose(text)
        for pattern, wanted in FORBIDDEN.items():
            for match in re.finditer(pattern, prose):
                found.append(f"{where}: '{match.group(0)}' -> {wanted}")
    assert found == [], "\n".join(found[:50]) + f"\n({len(found)} in all)"


def test_the_glossary_rejects_what_it_lists() -> None:
    samples = ["tek-sıcak kodlama", "Kosinüs tavlama", "gradyanlar indirgeniyor", "kurucusunda", "batch iş bitti",
               "her rank'ta", "0.5 GiB", "%37.5", "öğrenme hızı", "evrişim katmanı", "taban oranı", "örnekleyici",
               "ısı 0,7 ile", "yeniden yapılandırma hatası", "stratify yerine tabakalı bölme", "istikşaf", "sürüklenme",
               "uzun istemler", "sistem istemi", "isabet oranı", "ıskalanan istekler"]
    for sample in samples:
        assert any(re.search(p, _prose(sample)) for p in FORBIDDEN), sample
    allowed = ("her rank'te, rank'in, rank'i ve rank'li `0.5` ve 0,5 GiB, 12.000 adım; ısınma, ısı haritası, "
               "bloğun öncülü, standart sapma, yenilik etkisi; istemci istemez, isabetli tahmin")
    assert not any(re.search(p, _prose(allowed)) for p in FORBIDDEN)
