import { csrfHeaders, describeError, errorFrom } from "./api";
import { say } from "./dom";

/**
 * Voice input: record with MediaRecorder, send the recording to `POST /api/transcribe`, and put
 * the transcript into the message box for the person to check before sending.
 */
export function wireVoice(
  button: HTMLButtonElement,
  provider: HTMLSelectElement,
  target: HTMLTextAreaElement,
  status: HTMLElement,
): void {
  if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === "undefined") {
    button.disabled = true;
    button.title = "This browser cannot record audio.";
    return;
  }
  let recorder: MediaRecorder | undefined;

  const stopTracks = (stream: MediaStream) => {
    for (const track of stream.getTracks()) track.stop();
  };

  async function transcribe(blob: Blob): Promise<void> {
    say(status, "Transcribing your voice note…");
    const form = new FormData();
    const type = blob.type.split(";")[0] || "audio/webm";
    form.append("audio", new File([blob], `voice-note.${type.split("/")[1]}`, { type }));
    form.append("provider", provider.value);
    try {
      const response = await fetch("/api/transcribe", { method: "POST", headers: csrfHeaders(), body: form });
      if (!response.ok) throw await errorFrom(response);
      const { text } = (await response.json()) as { text: string };
      target.value = target.value ? `${target.value} ${text}` : text;
      target.focus();
      say(status, "Transcript added to your message. Check it, then send.", "success");
    } catch (error) {
      say(status, `Transcription failed: ${describeError(error)}`, "error");
    }
  }

  button.addEventListener("click", async () => {
    if (recorder?.state === "recording") {
      recorder.stop();
      return;
    }
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      say(status, "No microphone is available, or permission was refused. You can type your message instead.", "error");
      return;
    }
    const chunks: Blob[] = [];
    recorder = new MediaRecorder(stream);
    recorder.addEventListener("dataavailable", (event) => chunks.push(event.data));
    recorder.addEventListener("stop", () => {
      stopTracks(stream);
      button.textContent = "Record voice note";
      button.setAttribute("aria-pressed", "false");
      void transcribe(new Blob(chunks, { type: recorder?.mimeType || "audio/webm" }));
    });
    recorder.start();
    button.textContent = "Stop recording";
    button.setAttribute("aria-pressed", "true");
    say(status, "Recording… press “Stop recording” when you are done.");
  });
}
