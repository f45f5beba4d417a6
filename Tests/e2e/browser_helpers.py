"""Debian's chromium (headless) driven by Selenium through Debian's chromedriver, for the serve tests."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def browser(fake_video: Path | None = None, width: int = 1280, height: int = 1000) -> webdriver.Chrome:
    """A headless Chromium; with `fake_video`, its camera is that .y4m file (looped)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}", "--lang=en-US"):
        options.add_argument(arg)
    if fake_video is not None:
        options.add_argument("--use-fake-device-for-media-stream")
        options.add_argument("--use-fake-ui-for-media-stream")
        options.add_argument(f"--use-file-for-fake-video-capture={fake_video}")
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not look for drivers online
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


def wait_for(predicate, timeout: float = 60, interval: float = 0.2, what: str = "the page"):
    """Polls `predicate` until it returns a truthy value; fails naming `what` after `timeout` seconds."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as error:  # noqa: BLE001 (the element may not be there yet)
            last = error
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what} (last error: {last})")


def text(driver, selector: str) -> str:
    return driver.find_element(By.CSS_SELECTOR, selector).text


def banner(driver) -> str:
    element = driver.find_element(By.ID, "banner")
    return "" if element.get_attribute("hidden") is not None else element.text


def go(driver, served, page: str):
    """Opens `page` and waits until it has rendered (once more after a reload if the first try stalls)."""
    driver.get(f"http://{served.authority}/#{page}")

    def rendered():
        return driver.find_element(By.TAG_NAME, "body").get_attribute("data-page") == page

    try:
        wait_for(rendered, timeout=20, what=page)
    except AssertionError:
        driver.refresh()
        wait_for(rendered, timeout=40, what=f"{page} (browser log: {driver.get_log('browser')})")


def screenshot(driver, name: str):
    """Saves the window to $AIRLOCK_SCREENSHOTS/NAME.png when that directory is given (docs/images)."""
    folder = os.environ.get("AIRLOCK_SCREENSHOTS")
    if folder:
        from PIL import Image

        Path(folder).mkdir(parents=True, exist_ok=True)
        path = Path(folder) / f"{name}.png"
        driver.save_screenshot(str(path))
        height = driver.execute_script(
            "return Math.ceil(document.querySelector('footer').getBoundingClientRect().bottom + window.scrollY) + 8"
        )
        with Image.open(path) as image:
            if image.height > height:
                image.crop((0, 0, image.width, height)).save(path)
