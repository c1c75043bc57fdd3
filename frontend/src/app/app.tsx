import { useState } from "react";
import { RouterProvider } from "react-router";

import { AppProvider } from "./provider";
import { createAppRouter } from "./router";

export function App() {
  const [router] = useState(createAppRouter);
  return (
    <AppProvider>
      <RouterProvider router={router} />
    </AppProvider>
  );
}
